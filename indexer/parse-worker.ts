/**
 * A parse worker thread: loads the Markdown parser, says it is ready, then
 * parses the pages the pool sends, one at a time. The parsers a docs folder
 * rarely needs (built HTML pages, HTML with text inside Markdown; some fifty
 * modules, ~40 ms of this thread's CPU at every start) load with the first
 * page that needs them, in that page's time, as on the main thread
 * (parse-here.ts).
 */
import { parentPort } from 'node:worker_threads'
import { fileParser, type ParseJob, type ParseOutcome } from './parse-file.ts'
import { withHtmlParser } from './sources/html-text.ts'

async function parse(job: ParseJob): Promise<ParseOutcome> {
  const parser = await fileParser(job.mode)
  return withHtmlParser(() => parser(job))
}

await fileParser('source')
parentPort!.on('message', async (job: ParseJob) => parentPort!.postMessage(await parse(job)))
parentPort!.postMessage('ready')
