/**
 * The panel's link to the core turn. Retrieval runs in the worker; the walk
 * over the chain (ladder, cooldowns, free pool, receipts) is core/turn's
 * runTurn, unchanged. This module only wires runtime pieces into it: the
 * same-origin transport, the IndexedDB cooldown store and the view updates.
 */
import type { Manifest } from '../../core/index-format.ts'
import type { Passage, SearchResult } from '../../core/retrieval/search.ts'
import { systemClock } from '../../core/ladder/cooldown.ts'
import { routeTransport } from '../../core/ladder/transport.ts'
import { runTurn, type TurnEvent, type TurnResult } from '../../core/turn/run.ts'
import type { WidgetOptions } from '../options.ts'
import { RetrievalClient } from '../worker/client.ts'
import { loadCooldowns } from '../cooldowns.ts'
import { rateTurnInsight, startTurnInsight } from '../insights.ts'
import type { PassageView, TurnView } from './view.ts'

export function toPassageView(p: Passage): PassageView {
  return {
    id: p.id,
    url: p.url,
    anchor: p.anchor,
    title: p.title,
    trail: p.trail,
    text: p.text,
    score: p.score,
    ...(p.channels ? { channels: p.channels } : {}),
  }
}

export class Engine {
  private client: RetrievalClient | undefined
  private readonly cooldowns = loadCooldowns(location.origin)
  /** Questions asked so far in this panel, whatever became of them: a follow-up is searched for the conversation. */
  private readonly asked: string[] = []

  constructor(private readonly options: WidgetOptions) {}

  private retrieval(): RetrievalClient {
    this.client ??= new RetrievalClient(`${this.options.assetBase}docpilot-worker.js`, this.options.indexUrl, this.options.proxyBase)
    return this.client
  }

  manifest(): Promise<Manifest> {
    return this.retrieval().open()
  }

  prefetch(): void {
    this.manifest().catch(() => {})
  }

  /** Bytes the index cost over the network so far (bench). */
  stats() {
    return this.retrieval().stats()
  }

  async search(question: string): Promise<PassageView[]> {
    const result = await this.retrieval().search(question)
    return result.results.map(toPassageView)
  }

  async ask(
    question: string,
    history: { question: string; answer: string }[],
    signal: AbortSignal,
    update: (change: Partial<TurnView>) => void,
  ): Promise<void> {
    let text = ''
    let chat: Manifest['chat'] = { chain: [] }
    let insights: Manifest['insights']
    try {
      const manifest = await this.manifest()
      chat = manifest.chat
      insights = manifest.insights
    } catch (error) {
      // No manifest: the retrieve step below fails the same way and the turn settles as an error.
      console.warn('docpilot:', error)
    }
    const cooldowns = await this.cooldowns
    const insight = startTurnInsight(this.options.proxyBase, insights, cooldowns)
    const context = this.asked.slice()
    this.asked.push(question)
    const result: TurnResult = await runTurn({
      question,
      history,
      retrieve: (q: string): Promise<SearchResult> => this.retrieval().search(q, { context }),
      chain: chat.chain,
      ...(chat.settings ? { options: chat.settings } : {}),
      transport: routeTransport({ origin: this.options.proxyBase }),
      cooldowns,
      clock: systemClock,
      signal,
      onEvent: (event: TurnEvent) => {
        if (event.type === 'retrieval') update({ passages: event.passages.map(toPassageView) })
        else if (event.type === 'delta') {
          text += event.text
          update({ phase: 'answering', text })
        }
      },
    })
    insight?.(question, result)
    if (result.degraded && result.degradedReason) console.warn(`docpilot: search is degraded: ${result.degradedReason}`)
    if (this.options.debug) {
      console.info('turn.ladder =', JSON.stringify(result.ladder ? { ...result.ladder } : null))
    }
    update({
      phase: 'settled',
      state: result.state,
      text: result.text || text,
      passages: result.passages.map(toPassageView),
      degraded: result.state === 'refused' && result.degraded,
      ...(result.resetAt !== undefined ? { resetAt: result.resetAt } : {}),
      ...(result.ladder ? { ladder: result.ladder } : {}),
      receipt: result.receipt,
      ...(this.options.debug
        ? {
            cooldowns: Object.fromEntries(
              cooldowns.entries().map(([key, c]) => [key, { until: new Date(c.until).toISOString(), class: c.class }]),
            ),
          }
        : {}),
    })
  }

  async feedback(turn: TurnView, rating: 'up' | 'down'): Promise<boolean> {
    rateTurnInsight(this.options.proxyBase, turn.receipt, rating)
    const response = await fetch(`${this.options.proxyBase}/ai/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({
        rating,
        ladder: turn.ladder,
        receipt: turn.receipt,
        page: location.href,
        question: turn.question,
        answer: turn.text,
      }),
    })
    return response.ok
  }
}
