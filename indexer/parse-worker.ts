/** A parse worker thread: loads every parser, says it is ready, then parses the pages the pool sends, one at a time. */
import { parentPort } from 'node:worker_threads'
import { fileParser, type ParseJob } from './parse-file.ts'
import { loadHtmlParser } from './sources/html-text.ts'

await loadHtmlParser()
const parsers = { source: await fileParser('source'), site: await fileParser('site') }
parentPort!.on('message', (job: ParseJob) => parentPort!.postMessage(parsers[job.mode](job)))
parentPort!.postMessage('ready')
