/**
 * Drives the panel's own retrieval worker from a served page, without the
 * panel: open the index, then embed and search each question the way a turn
 * does. Specs compare what it returns with the same core code run in Node.
 */
import type { Page } from '@playwright/test'

export interface WorkerAnswer {
  vector: number[] | null
  mode: string
  degraded: boolean
  top: string[]
}

export async function probeWorker(page: Page, opts: { workerUrl: string; indexUrl: string; questions: string[] }): Promise<WorkerAnswer[]> {
  return page.evaluate(async ({ workerUrl, indexUrl, questions }) => {
    const worker = new Worker(workerUrl, { type: 'module' })
    let next = 1
    const call = (msg: Record<string, unknown>) =>
      new Promise<any>((resolve, reject) => {
        const id = next++
        worker.addEventListener('message', function onMessage(e: MessageEvent) {
          if (e.data.id !== id) return
          worker.removeEventListener('message', onMessage)
          if (e.data.ok) resolve(e.data)
          else reject(new Error(e.data.error))
        })
        worker.postMessage({ ...msg, id })
      })
    await call({ type: 'open', indexUrl, proxyBase: '' })
    const out = []
    for (const q of questions) {
      const embedded = await call({ type: 'embed', q })
      const searched = await call({ type: 'search', q, k: 8 })
      out.push({
        vector: embedded.vector as number[] | null,
        mode: searched.result.mode as string,
        degraded: searched.result.degraded as boolean,
        top: searched.result.results.map((p: { id: string }) => p.id) as string[],
      })
    }
    worker.terminate()
    return out
  }, opts)
}
