/** A parse worker thread: says it is ready, then parses the pages the pool sends, one at a time. */
import { parentPort } from 'node:worker_threads'
import { parseFile, type ParseJob } from './parse-file.ts'

parentPort!.on('message', (job: ParseJob) => parentPort!.postMessage(parseFile(job)))
parentPort!.postMessage('ready')
