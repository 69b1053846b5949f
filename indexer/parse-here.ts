/**
 * Pages parsed on this thread, under the same time backstop as the parse
 * thread (parse-pool.ts). Starting that thread costs more than parsing a few
 * pages (its own isolate, and every parser module loaded a second time: about
 * 0.3 s of CPU), which a re-index after one edit would pay for one page.
 *
 * A synchronous parse cannot be stopped from JavaScript; V8 can stop it, and
 * node:vm's `timeout` asks it to: the parse runs as a call from a tiny
 * script, and a watchdog thread terminates that script when the limit
 * passes. The parsers keep no state between pages that a cut parse could
 * leave half-changed (each page gets its own lexer, YAML document and
 * slugger), so the next page parses as if nothing happened. What the parse
 * thread adds is a fence around memory: a page that exhausts the heap takes
 * only its thread down. That is why large pages, and runs with many pages to
 * parse, still go to the thread (collect.ts decides).
 */
import { Script } from 'node:vm'
import { overTime, timeLeft } from './parse-pool.ts'
import { fileParser, type ParseJob, type ParseOutcome } from './parse-file.ts'
import { withHtmlParser } from './sources/html-text.ts'
import { now } from './clock.ts'

/**
 * Where the tiny script finds the parse: a global under a registered
 * symbol (no name a page's code could meet), set for one call. The script
 * runs in this context: a context of its own (vm.createContext) cost a
 * re-index about 8 ms of CPU to create, a thirtieth of its run, and the
 * watchdog stops a script here just as well.
 */
const PARSE = Symbol.for('docpilot.parseHere')
let call: Script | undefined

/** `job` parsed here, or skipped with the parse thread's reason when it runs past `timeoutMs`. */
export async function parseHere(job: ParseJob, timeoutMs: number): Promise<ParseOutcome> {
  const parse = await fileParser(job.mode)
  const started = now()
  // A page with HTML with text in it is parsed once more, after that parser loads, in the time left.
  return withHtmlParser((again) => timed(() => parse(job), again ? timeLeft(timeoutMs, started) : timeoutMs, timeoutMs))
}

/** `parse` stopped after `budgetMs`, and then said to have run past the page's limit, `limitMs`. */
function timed(parse: () => ParseOutcome, budgetMs: number, limitMs: number): ParseOutcome {
  const global = globalThis as typeof globalThis & { [PARSE]?: () => ParseOutcome }
  call ??= new Script(`globalThis[Symbol.for('docpilot.parseHere')]()`)
  global[PARSE] = parse
  try {
    return call.runInThisContext({ timeout: budgetMs }) as ParseOutcome
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { ok: false, reason: overTime(limitMs), transient: true }
    throw error
  } finally {
    delete global[PARSE]
  }
}
