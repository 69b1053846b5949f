/**
 * Insights from the reader's side: when the index says the owner enabled
 * them (`manifest.insights`), each settled turn is sent to the site's own
 * proxy as one small record (`POST /ai/events`, a beacon: the reader never
 * waits on it, and a failure is silent). The record carries measurements
 * and section ids; the question only when the owner opted in to text
 * (`questions`). A random id per browser tab, never a user id.
 */
import type { Manifest } from '../core/index/format.ts'
import { activeCooldown, type CooldownStore } from '../core/ladder/cooldown.ts'
import { citedNumbers } from '../core/prompt/cited.ts'
import { MEMBER_IDS, type MemberId } from '../core/providers/table.ts'
import type { TurnReceipt, TurnResult } from '../core/turn/types.ts'

/** As many top sections as the proxy stores per event (proxy/events.ts EVENT_SECTIONS). */
const SECTIONS = 5
const TAB_KEY = 'docpilot:tab'

function randomId(): string {
  return crypto.randomUUID()
}

let tab: string | undefined
/** This tab's id: kept in sessionStorage (one per tab, gone with it), or per page load where storage is refused. */
function tabId(): string {
  if (tab) return tab
  try {
    tab = sessionStorage.getItem(TAB_KEY) ?? undefined
    if (!tab) sessionStorage.setItem(TAB_KEY, (tab = randomId()))
  } catch {
    tab = randomId()
  }
  return tab
}

/** Sends without holding the page: a beacon (text/plain, so no preflight), else a keepalive fetch. */
function beacon(url: string, body: unknown): void {
  const json = JSON.stringify(body)
  try {
    if (typeof navigator.sendBeacon === 'function' && navigator.sendBeacon(url, json)) return
  } catch {
    // Fall through to fetch.
  }
  fetch(url, { method: 'POST', body: json, keepalive: true, credentials: 'same-origin' }).catch(() => {})
}

/** Turn ids by receipt object, so a later thumbs finds its turn without the view carrying an id. */
const turnIds = new WeakMap<TurnReceipt, string>()

/** Members stepped aside right now (whole members, not single free-pool ids). */
function coolingMembers(cooldowns: CooldownStore, now: number): MemberId[] {
  const members = MEMBER_IDS as readonly string[]
  return cooldowns
    .entries()
    .map(([key]) => key)
    .filter((key): key is MemberId => members.includes(key) && activeCooldown(cooldowns, key, now) !== undefined)
}

/** The event of a settled turn, as /ai/events takes it. */
export function turnEvent(result: TurnResult, ids: { tab: string; turn: string }, cooling: MemberId[], question?: string) {
  const cited = new Set(citedNumbers(result.text, result.citations.length))
  return {
    kind: 'turn' as const,
    tab: ids.tab,
    turn: ids.turn,
    outcome: result.state,
    retrieval: result.receipt.retrieval,
    sections: result.passages.slice(0, SECTIONS).map((p, i) => ({ path: p.path, anchor: p.anchor, trail: p.trail, cited: cited.has(i + 1) })),
    ladder: result.ladder,
    cooling,
    stages: result.receipt.stages,
    ...(result.receipt.stoppedBy ? { stoppedBy: result.receipt.stoppedBy } : {}),
    ...(question !== undefined ? { question } : {}),
  }
}

/**
 * Called as a turn starts (it notes who is cooling then); returns what to
 * call once the turn settles. Nothing at all when insights are off.
 */
export function startTurnInsight(
  proxyBase: string,
  insights: Manifest['insights'],
  cooldowns: CooldownStore,
): ((question: string, result: TurnResult) => void) | undefined {
  if (!insights) return undefined
  const cooling = coolingMembers(cooldowns, Date.now())
  return (question, result) => {
    // A turn the reader stopped is not an outcome of the docs or the ladder.
    if (result.state === 'aborted') return
    const ids = { tab: tabId(), turn: randomId() }
    turnIds.set(result.receipt, ids.turn)
    beacon(`${proxyBase}/ai/events`, turnEvent(result, ids, cooling, insights.questions ? question : undefined))
  }
}

/** A reader's thumbs on a turn whose event was sent (nothing for any other turn). */
export function rateTurnInsight(proxyBase: string, receipt: TurnReceipt | undefined, rating: 'up' | 'down'): void {
  const turn = receipt && turnIds.get(receipt)
  if (turn) beacon(`${proxyBase}/ai/events`, { kind: 'rating', tab: tabId(), turn, rating })
}
