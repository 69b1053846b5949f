/**
 * The conversation outlives the page it started on: a citation click or a
 * reload loads a new page, and the reader reopening the panel there finds
 * the turns where they left them. Kept in sessionStorage by default, so it
 * lives as long as the tab and nothing stays once the tab is closed; an
 * owner can opt into localStorage (`data-conversation="browser"`) or out of
 * keeping it at all (`"none"`).
 */
import type { ConversationKeeping } from '../options.ts'
import type { TurnView } from './view.ts'

/** Older turns are dropped first: a conversation is a few questions, not an archive. */
export const KEPT_TURNS = 20

const VERSION = 1

interface Stored {
  version: typeof VERSION
  turns: TurnView[]
}

export interface ConversationStore {
  load(): TurnView[]
  save(turns: readonly TurnView[]): void
  clear(): void
}

function storageFor(keeping: ConversationKeeping): Storage | undefined {
  try {
    if (keeping === 'tab') return sessionStorage
    if (keeping === 'browser') return localStorage
  } catch {
    // Storage blocked by the browser's privacy settings: the conversation lives with the page.
  }
  return undefined
}

/**
 * A turn still in flight when the page goes away (a citation clicked while
 * the answer streams) cannot resume: it is kept as stopped, with what it had.
 */
function asKept(turn: TurnView): TurnView {
  if (turn.phase === 'settled') return turn
  return { ...turn, phase: 'settled', state: 'aborted' }
}

function isTurn(value: unknown): value is TurnView {
  const t = value as TurnView | null
  return !!t && typeof t.id === 'number' && typeof t.question === 'string' && typeof t.text === 'string' && Array.isArray(t.passages)
}

export function conversationStore(keeping: ConversationKeeping, indexUrl: string): ConversationStore {
  const storage = storageFor(keeping)
  const key = `docpilot:conversation:${indexUrl}`
  return {
    load() {
      try {
        const stored = JSON.parse(storage?.getItem(key) ?? 'null') as Stored | null
        return stored?.version === VERSION && Array.isArray(stored.turns) ? stored.turns.filter(isTurn).map(asKept) : []
      } catch {
        return []
      }
    },
    save(turns) {
      if (!storage) return
      try {
        if (turns.length === 0) storage.removeItem(key)
        else storage.setItem(key, JSON.stringify({ version: VERSION, turns: turns.slice(-KEPT_TURNS).map(asKept) } satisfies Stored))
      } catch {
        // Full or blocked: the conversation still lives with the page.
      }
    },
    clear() {
      try {
        storage?.removeItem(key)
      } catch {
        // Nothing was kept.
      }
    },
  }
}
