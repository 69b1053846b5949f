/**
 * Pages are parsed in a worker thread, under a time backstop. The per-file
 * byte and nesting limits bound what they are meant to bound, the same on
 * every machine, but not every slow path of a Markdown tokenizer (a page of
 * thousands of one-item lists costs marked's lexer far more than its bytes;
 * micromark, used before it, took time growing with the square of their
 * number). A parse still running after its time limit has its thread
 * terminated, which is the only way to stop a synchronous parse, and the
 * page is skipped with a warning naming the limit.
 *
 * One thread by default, and every page of a first build goes through it:
 * the parse code then warms up once, as it would on the main thread, while
 * the main thread chunks the pages already parsed (astro, 420 pages: CPU 5.9 s
 * against 6.5 s in-process, dist build, medians of 2). Each further thread
 * warms the parser up again (two threads: 7.7 s), which a site pays in CPU for
 * little wall time on a small machine. A run with only a few small pages to
 * parse parses them on the main thread instead (parse-here.ts, collect.ts).
 *
 * One pool per process, its thread kept between runs (`docpilot dev`
 * re-indexes on every change) and never keeping the process alive.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Worker } from 'node:worker_threads'
import type { ParseJob, ParseOutcome } from './parse-file.ts'
import { now } from './clock.ts'

interface Slot {
  worker: Worker
  ready: Promise<void>
}

/**
 * Runs ParseJobs in worker threads. `parse` resolves with the page, or with
 * the reason it was skipped (over time, could not be parsed, its thread
 * crashed); it rejects only when a thread cannot start at all.
 */
export class ParsePool {
  private readonly idle: Slot[] = []
  private readonly waiting: ((slot: Slot) => void)[] = []
  private started = 0

  constructor(readonly size: number) {}

  /**
   * `timeoutMs` counts from when a ready thread receives the page, so starting a thread never counts against it.
   * `limitMs`, the page's whole limit, is the one a page over time is said to have run past (a page parsed here
   * after a failed try on the main thread gets only the time left).
   */
  async parse(job: ParseJob, timeoutMs: number, limitMs = timeoutMs): Promise<ParseOutcome> {
    const slot = await this.acquire()
    try {
      await slot.ready
    } catch (error) {
      // The next waiting page tries a fresh thread (and fails the same way if threads cannot start at all).
      this.started--
      this.release(undefined)
      throw error
    }
    slot.worker.ref()
    const { result, spent } = await this.run(slot, job, timeoutMs, limitMs)
    if (spent) this.started--
    else slot.worker.unref()
    this.release(spent ? undefined : slot)
    return result
  }

  /** Stops every idle thread (tests and benchmarks that want a cold start). */
  async close(): Promise<void> {
    const slots = this.idle.splice(0)
    this.started -= slots.length
    await Promise.all(slots.map((s) => s.worker.terminate()))
  }

  private run(slot: Slot, job: ParseJob, timeoutMs: number, limitMs: number): Promise<{ result: ParseOutcome; spent: boolean }> {
    const { worker } = slot
    return new Promise((resolve) => {
      const finish = (result: ParseOutcome, spent: boolean) => {
        clearTimeout(timer)
        worker.off('message', onMessage)
        worker.off('error', onError)
        worker.off('exit', onExit)
        if (spent) void worker.terminate()
        resolve({ result, spent })
      }
      const onMessage = (result: ParseOutcome) => finish(result, false)
      // A parse that crashes its thread (out of memory, a native failure) loses that page and that thread only.
      const onError = (error: Error) => finish({ ok: false, reason: `could not be parsed (${error.message.split('\n')[0]}); skipped`, transient: true }, true)
      const onExit = (code: number) => finish({ ok: false, reason: `could not be parsed (its parse thread exited with code ${code}); skipped`, transient: true }, true)
      const timer = setTimeout(() => finish({ ok: false, reason: overTime(limitMs), transient: true }, true), timeoutMs)
      worker.on('message', onMessage)
      worker.on('error', onError)
      worker.on('exit', onExit)
      worker.postMessage(job)
    })
  }

  private acquire(): Promise<Slot> {
    const slot = this.idle.pop()
    if (slot) return Promise.resolve(slot)
    if (this.started < this.size) {
      this.started++
      return Promise.resolve(startWorker())
    }
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  /** Hands a free thread (or a fresh one, in place of one that was spent) to the next waiting page. */
  private release(slot: Slot | undefined): void {
    const next = this.waiting.shift()
    if (!next) {
      if (slot) this.idle.push(slot)
      return
    }
    if (slot) return next(slot)
    this.started++
    next(startWorker())
  }
}

let shared: ParsePool | undefined

/** The process's parse pool (one thread, see above). */
export function parsePool(): ParsePool {
  return (shared ??= new ParsePool(1))
}

/** What is left (at least 1 ms) of a page's `limitMs` after a try that began at `started` (clock.ts). */
export function timeLeft(limitMs: number, started: number): number {
  return Math.max(1, Math.ceil(limitMs - (now() - started)))
}

export function overTime(timeoutMs: number): string {
  return `took longer than ${timeoutMs} ms to parse, over the per-file time backstop docs.parseTimeoutMs = ${timeoutMs}; skipped (raise docs.parseTimeoutMs to index it)`
}

/** tsx's ESM API (its `register()` adds the TypeScript loader to the thread that calls it), found through its package exports. */
function tsxApi(from: string): string {
  const manifest = createRequire(from).resolve('tsx/package.json')
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }
  return pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href
}

/**
 * A thread runs the compiled parse-worker.js in an installed package; in a
 * checkout (this module is TypeScript) it runs parse-worker.ts through tsx, as
 * bin/docpilot.cjs runs the CLI, so a change needs no build step.
 */
function startWorker(): Slot {
  // Loaded when a thread starts: a re-index parses its few pages on the main thread and never needs it (~3 ms at start).
  const { Worker } = process.getBuiltinModule('node:worker_threads')
  const here = import.meta.url
  const worker = here.endsWith('.ts')
    ? new Worker(`import(${JSON.stringify(tsxApi(here))}).then(({ register }) => { register(); return import(${JSON.stringify(new URL('./parse-worker.ts', here).href)}) })`, { eval: true })
    : new Worker(new URL('./parse-worker.js', here))
  const ready = new Promise<void>((resolve, reject) => {
    const onReady = (message: unknown) => {
      if (message !== 'ready') return
      worker.off('message', onReady)
      worker.off('error', reject)
      resolve()
    }
    worker.on('message', onReady)
    worker.once('error', reject)
  })
  return { worker, ready }
}
