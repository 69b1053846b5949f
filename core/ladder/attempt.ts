/**
 * One attempt: one request to one member for one model, streamed, with the
 * member's two time limits (to the first delta, then between deltas; a
 * reasoning model's thinking counts, shown or not: the service is alive) and
 * the caller's AbortSignal, both of which cancel the upstream request.
 */
import { untilAborted } from '../abort.ts'
import { msSince } from '../timing.ts'
import type { PublicChainMember } from '../index/format.ts'
import type { WireAdapter, ChatRequest, WireRequest, Usage } from './adapters/types.ts'
import { classifyResponse } from './classify.ts'
import type { Clock } from './cooldown.ts'
import type { Failure } from './failure.ts'
import type { AttemptRecord } from './receipt.ts'
import { thinkFilter, type Shown } from './think.ts'

export interface TransportRequest extends WireRequest {
  signal: AbortSignal
}

/**
 * Sends a member's request. In the panel: fetch(member.route + path) on the
 * site's own origin (the proxy attaches the key). In the CLI and tests: the
 * member's upstream base URL with the key attached (see `directTransport`).
 */
export type Transport = (member: PublicChainMember, request: TransportRequest) => Promise<Response>

export interface Timeouts {
  /** From dispatch to the first delta. */
  firstByteMs: number
  /** Between one delta and the next. */
  idleMs: number
}

export interface AttemptInput {
  member: PublicChainMember
  /** The member's position in the configured chain. */
  index: number
  model: string
  /** Position of the model inside a free pool; undefined outside one. */
  poolIndex?: number
  adapter: WireAdapter
  request: ChatRequest
  transport: Transport
  timeouts: Timeouts
  clock: Clock
  signal?: AbortSignal
  onDelta: (text: string) => void
  /** What the deltas showed was a reasoning model's thinking after all (see think.ts): clear it. */
  onRetract: () => void
}

export interface AttemptOutcome {
  record: AttemptRecord
  kind: 'ok' | 'failed' | 'aborted'
  failure?: Failure
  /** Whether any delta reached the reader before the attempt ended. */
  afterDelta: boolean
  text: string
  finishReason?: string
  usage?: Usage
}

export async function runAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  const { member, model, adapter, timeouts, signal } = input
  const ac = new AbortController()
  const onOuterAbort = () => ac.abort()
  if (signal?.aborted) ac.abort()
  else signal?.addEventListener('abort', onOuterAbort, { once: true })

  let timedOut = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const arm = (ms: number) => {
    if (timer !== undefined) clearTimeout(timer)
    timer = setTimeout(() => {
      timedOut = true
      ac.abort()
    }, ms)
  }

  const t0 = performance.now()
  let ttfbMs: number | null = null
  let firstDeltaMs: number | null = null
  let status: number | null = null
  let servedModel: string | undefined
  let text = ''
  let finishReason: string | undefined
  let usage: Usage | undefined
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined

  const finish = (kind: AttemptOutcome['kind'], failure?: Failure): AttemptOutcome => {
    if (timer !== undefined) clearTimeout(timer)
    signal?.removeEventListener('abort', onOuterAbort)
    // Cancel whatever is still open upstream: the stream is not read any further.
    reader?.cancel().catch(() => {})
    if (kind !== 'ok') ac.abort()
    const record: AttemptRecord = {
      member: member.provider,
      index: input.index,
      model,
      class: kind === 'ok' ? 'ok' : kind === 'aborted' ? 'aborted' : failure!.class,
      status: failure?.status ?? status,
      ttfbMs,
      firstDeltaMs,
      durationMs: msSince(t0),
    }
    if (input.poolIndex !== undefined) record.poolIndex = input.poolIndex
    if (servedModel) record.servedModel = servedModel
    if (failure?.code) record.code = failure.code
    if (failure?.retryAfterMs !== undefined) record.retryAfterMs = failure.retryAfterMs
    // Whitespace alone shows the reader nothing: the next member may still answer in its place.
    const out: AttemptOutcome = { record, kind, afterDelta: text.trim() !== '', text }
    if (failure) out.failure = failure
    if (finishReason) out.finishReason = finishReason
    if (usage) out.usage = usage
    return out
  }

  /** Why the attempt stopped when a promise rejected: the caller, a time limit, or the network. */
  const interrupted = (): AttemptOutcome => {
    if (signal?.aborted) return finish('aborted')
    if (timedOut) return finish('failed', { class: 'timeout', status: null })
    if (firstDeltaMs !== null) return finish('failed', { class: 'stream_broken', status })
    return finish('failed', { class: 'network', status: null })
  }

  if (ac.signal.aborted) return finish('aborted')
  arm(timeouts.firstByteMs)

  const wire = adapter.request(model, input.request)
  let res: Response
  try {
    res = await untilAborted(input.transport(member, { ...wire, signal: ac.signal }), ac.signal)
  } catch {
    return interrupted()
  }
  ttfbMs = msSince(t0)
  status = res.status

  if (!res.ok) {
    let body = ''
    try {
      body = await untilAborted(res.text(), ac.signal)
    } catch {
      if (signal?.aborted) return finish('aborted')
    }
    return finish('failed', classifyResponse(res.status, res.headers, body, input.clock.now()))
  }
  if (!res.body) return finish('failed', { class: 'network', status })

  reader = res.body.getReader()
  const decoder = adapter.decoder(() => input.clock.now())
  const utf8 = new TextDecoder()
  const thinking = thinkFilter()
  const show = ({ text: visible, retract }: Shown) => {
    if (retract) {
      // Nothing of the answer has been shown yet: the timings and the walk (afterDelta) see it so.
      text = ''
      firstDeltaMs = null
      input.onRetract()
    }
    if (!visible) return
    if (firstDeltaMs === null) firstDeltaMs = msSince(t0)
    text += visible
    input.onDelta(visible)
  }
  let done = false
  try {
    while (!done) {
      const chunk = await untilAborted(reader.read(), ac.signal)
      const events = chunk.done ? [...decoder.push(utf8.decode()), ...decoder.end()] : decoder.push(utf8.decode(chunk.value, { stream: true }))
      for (const ev of events) {
        if (ev.type === 'delta') {
          // Thinking is progress too: the service is alive while the reader waits for the answer's first word.
          arm(timeouts.idleMs)
          show(thinking.push(ev.text))
        } else if (ev.type === 'thinking') {
          arm(timeouts.idleMs)
        } else if (ev.type === 'meta') {
          if (ev.model) servedModel = ev.model
          if (ev.usage) usage = { ...usage, ...stripUndefined(ev.usage) }
        } else if (ev.type === 'done') {
          finishReason = ev.finishReason ?? finishReason
          done = true
        } else if (ev.type === 'error') {
          return finish('failed', ev.failure)
        }
      }
      if (chunk.done) break
    }
  } catch {
    return interrupted()
  }
  show(thinking.end())
  if (!done) {
    // The connection closed without the protocol's end marker.
    return finish('failed', { class: firstDeltaMs !== null ? 'stream_broken' : 'network', status })
  }
  // A finished stream with nothing in it is no answer: settled as one, the reader gets a blank turn.
  if (text.trim() === '') return finish('failed', { class: 'empty_answer', status })
  return finish('ok')
}

function stripUndefined(u: Usage): Usage {
  const out: Usage = {}
  if (u.inputTokens !== undefined) out.inputTokens = u.inputTokens
  if (u.outputTokens !== undefined) out.outputTokens = u.outputTokens
  return out
}
