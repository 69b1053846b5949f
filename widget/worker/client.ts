/**
 * The panel's side of the retrieval worker: request/response over
 * postMessage. Stages 1-4 (embed, retrieve, fuse, gate) run in the worker so
 * typing and streaming never wait on index work.
 */
import type { Manifest } from '../../core/index/format.ts'
import type { SearchResult } from '../../core/retrieval/search.ts'
import type { WorkerReply, WorkerRequest, WorkerStats } from './protocol.ts'

type Pending = { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void }
type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never

export class RetrievalClient {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private opened: Promise<Manifest> | undefined

  constructor(
    workerUrl: string,
    private readonly indexUrl: string,
    private readonly proxyBase: string,
  ) {
    this.worker = new Worker(workerUrl, { type: 'module', name: 'docpilot-retrieval' })
    this.worker.addEventListener('message', (event: MessageEvent<WorkerReply>) => {
      const waiter = this.pending.get(event.data.id)
      if (!waiter) return
      this.pending.delete(event.data.id)
      waiter.resolve(event.data)
    })
    this.worker.addEventListener('error', (event) => {
      const error = new Error(`docpilot: retrieval worker failed: ${event.message}`)
      for (const waiter of this.pending.values()) waiter.reject(error)
      this.pending.clear()
    })
  }

  private call(request: Request): Promise<Extract<WorkerReply, { ok: true }>> {
    const id = this.nextId++
    return new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.worker.postMessage({ ...request, id } as WorkerRequest)
    }).then((reply) => {
      if (!reply.ok) throw new Error(reply.error)
      return reply
    })
  }

  /** Loads the manifest (once); later calls share the same promise. */
  open(): Promise<Manifest> {
    this.opened ??= this.call({ type: 'open', indexUrl: this.indexUrl, proxyBase: this.proxyBase }).then((r) => {
      if (r.type !== 'open') throw new Error('docpilot: unexpected worker reply')
      return r.manifest
    })
    // A failed open may be a passing network blip: let the next call try again.
    this.opened.catch(() => (this.opened = undefined))
    return this.opened
  }

  /** `context`: the conversation's earlier questions, oldest first. */
  async search(q: string, opts: { k?: number; context?: string[] } = {}): Promise<SearchResult> {
    await this.open()
    const reply = await this.call({ type: 'search', q, ...(opts.k ? { k: opts.k } : {}), ...(opts.context?.length ? { context: opts.context } : {}) })
    if (reply.type !== 'search') throw new Error('docpilot: unexpected worker reply')
    return reply.result
  }

  async stats(): Promise<WorkerStats> {
    const reply = await this.call({ type: 'stats' })
    if (reply.type !== 'stats') throw new Error('docpilot: unexpected worker reply')
    return reply.stats
  }
}
