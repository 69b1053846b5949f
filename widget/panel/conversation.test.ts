import { afterEach, describe, expect, it, vi } from 'vitest'
import { conversationStore, KEPT_TURNS } from './conversation.ts'
import type { TurnView } from './view.ts'

class MemoryStorage {
  private readonly items = new Map<string, string>()
  getItem = (k: string) => this.items.get(k) ?? null
  setItem = (k: string, v: string) => void this.items.set(k, v)
  removeItem = (k: string) => void this.items.delete(k)
  get size() {
    return this.items.size
  }
}

const turn = (id: number, change: Partial<TurnView> = {}): TurnView => ({
  id,
  question: `q${id}`,
  phase: 'settled',
  state: 'answered',
  text: 'answer [1]',
  passages: [],
  degraded: false,
  ...change,
})

describe('conversationStore', () => {
  const session = new MemoryStorage()
  const local = new MemoryStorage()
  vi.stubGlobal('sessionStorage', session)
  vi.stubGlobal('localStorage', local)
  afterEach(() => {
    conversationStore('tab', '/a/').clear()
    conversationStore('browser', '/a/').clear()
  })

  it('keeps the turns for the tab by default, per index, and nothing in localStorage', () => {
    conversationStore('tab', '/a/').save([turn(1), turn(2)])
    expect(conversationStore('tab', '/a/').load().map((t) => t.id)).toEqual([1, 2])
    expect(conversationStore('tab', '/b/').load()).toEqual([])
    expect(local.size).toBe(0)
  })

  it('in localStorage when the owner opts in; not at all with "none"', () => {
    conversationStore('browser', '/a/').save([turn(1)])
    expect(local.size).toBe(1)
    expect(conversationStore('tab', '/a/').load()).toEqual([])
    conversationStore('none', '/a/').save([turn(1)])
    expect(conversationStore('none', '/a/').load()).toEqual([])
  })

  it('a turn still in flight is kept as stopped; only the last turns are kept', () => {
    const many = Array.from({ length: KEPT_TURNS + 5 }, (_, i) => turn(i + 1))
    many.push(turn(99, { phase: 'answering', state: undefined, text: 'half' }))
    conversationStore('tab', '/a/').save(many)
    const kept = conversationStore('tab', '/a/').load()
    expect(kept).toHaveLength(KEPT_TURNS)
    expect(kept.at(-1)).toMatchObject({ id: 99, phase: 'settled', state: 'aborted', text: 'half' })
  })

  it('ignores what it cannot read, and clear() forgets', () => {
    session.setItem('docpilot:conversation:/a/', '{not json')
    expect(conversationStore('tab', '/a/').load()).toEqual([])
    session.setItem('docpilot:conversation:/a/', JSON.stringify({ version: 1, turns: [{ id: 'x' }, turn(3)] }))
    expect(conversationStore('tab', '/a/').load().map((t) => t.id)).toEqual([3])
    conversationStore('tab', '/a/').clear()
    expect(conversationStore('tab', '/a/').load()).toEqual([])
  })
})
