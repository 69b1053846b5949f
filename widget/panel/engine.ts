/**
 * The panel's link to the core turn. Retrieval runs in the worker; the walk
 * over the chain (ladder, cooldowns, free pool, receipts) is core/turn's
 * runTurn, unchanged. This module only wires runtime pieces into it: the
 * same-origin transport, the IndexedDB cooldown store and the view updates.
 * A site whose manifest names no chat chain is the search-only product: its
 * turns are the search view, never a walk over an empty ladder.
 */
import type { Manifest } from '../../core/index/format.ts'
import { parseManifest } from '../../core/index/read-manifest.ts'
import { fetchPart } from '../../core/index/fetch-part.ts'
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

/** Rows in the search view: more than a turn gives a model, grouped by page. */
export const SEARCH_VIEW_K = 20

export function isSearchOnly(manifest: Manifest): boolean {
  return manifest.chat.chain.length === 0
}

export class Engine {
  private client: RetrievalClient | undefined
  private readonly cooldowns = loadCooldowns(location.origin)

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

  /** The search view for a question; `earlier`: the conversation's questions before it, oldest first. */
  async search(question: string, earlier: string[] = []): Promise<Pick<TurnView, 'passages' | 'closeMatch'>> {
    const result = await this.retrieval().search(question, { k: SEARCH_VIEW_K, context: earlier })
    return { passages: result.results.map(toPassageView), closeMatch: result.gate.pass }
  }

  /**
   * One turn. `earlier`: the conversation's questions before this one, whatever
   * became of them (a follow-up is searched for the conversation); `history`:
   * its exchanges, for the prompt (promptHistory).
   */
  async ask(
    question: string,
    { earlier, history }: { earlier: string[]; history: { question: string; answer: string }[] },
    signal: AbortSignal,
    update: (change: Partial<TurnView>) => void,
  ): Promise<void> {
    let text = ''
    let manifest: Manifest
    try {
      manifest = await this.manifest()
    } catch (error) {
      // The index could not be opened, so nothing can be searched and no model has passages to answer from. The
      // turn settles on this one failed open: searching anyway only opened the index again (and again read
      // manifest.json) to fail the same way. Retry opens it afresh (RetrievalClient forgets a failed open).
      console.warn('docpilot:', error)
      // manifest.json on its own may still say which product this is (the open fails on any of its parts), so the error names the right thing.
      const alone = signal.aborted ? undefined : await this.manifestAlone()
      update({ phase: 'settled', state: signal.aborted ? 'aborted' : 'error', ...(alone && isSearchOnly(alone) ? { searchOnly: true } : {}) })
      return
    }
    if (isSearchOnly(manifest)) {
      await this.searchTurn(question, earlier, update)
      return
    }
    const { chat } = manifest
    const cooldowns = await this.cooldowns
    const insight = startTurnInsight(this.options.proxyBase, manifest.insights, cooldowns)
    const result: TurnResult = await runTurn({
      question,
      history,
      retrieve: (q: string): Promise<SearchResult> => this.retrieval().search(q, { context: earlier }),
      chain: chat.chain,
      ...(chat.settings ? { options: chat.settings } : {}),
      transport: routeTransport({ origin: this.options.proxyBase }),
      cooldowns,
      clock: systemClock,
      signal,
      onEvent: (event: TurnEvent) => {
        if (event.type === 'retrieval') {
          update({ phase: 'asking', passages: event.passages.map(toPassageView), ...(event.given !== undefined ? { given: event.given } : {}) })
        } else if (event.type === 'delta') {
          text += event.text
          update({ phase: 'answering', text })
        } else if (event.type === 'retract') {
          // The model's thinking, shown until its closing tag came: the reader is back to waiting for the answer.
          text = ''
          update({ phase: 'asking', text })
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
      given: result.citations.length,
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

  /** manifest.json read directly, for when the worker cannot open the index; undefined if it cannot be read either. */
  private async manifestAlone(): Promise<Manifest | undefined> {
    try {
      const bytes = await fetchPart(fetch, `${this.options.indexUrl}manifest.json`, { init: { credentials: 'same-origin' } }, 'manifest.json')
      return parseManifest(bytes)
    } catch {
      return undefined
    }
  }

  private async searchTurn(question: string, earlier: string[], update: (change: Partial<TurnView>) => void): Promise<void> {
    try {
      update({ phase: 'settled', state: 'search', searchOnly: true, ...(await this.search(question, earlier)) })
    } catch (error) {
      console.warn('docpilot:', error)
      update({ phase: 'settled', state: 'error', searchOnly: true })
    }
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
