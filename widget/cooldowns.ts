/**
 * The ladder's cooldowns, persisted in IndexedDB so a reload still keeps a
 * member that stepped aside at the back of the order until its time is up.
 * core/ladder reads the store synchronously; this keeps a Map in memory,
 * loaded once, and writes every change through.
 */
import { createStore, set, type UseStore } from 'idb-keyval'
import type { Cooldown, CooldownStore } from '../core/ladder/cooldown.ts'
import { lookup } from './store-wait.ts'

type Snapshot = [string, Cooldown][]

export class PersistentCooldowns implements CooldownStore {
  private readonly map: Map<string, Cooldown>
  private writing: Promise<void> = Promise.resolve()

  constructor(
    snapshot: Snapshot,
    private readonly save: (entries: Snapshot) => Promise<void>,
    now = Date.now(),
  ) {
    this.map = new Map(snapshot.filter(([, c]) => c.until > now))
  }

  get(key: string): Cooldown | undefined {
    return this.map.get(key)
  }
  set(key: string, value: Cooldown): void {
    this.map.set(key, value)
    this.flush()
  }
  delete(key: string): void {
    if (this.map.delete(key)) this.flush()
  }
  entries(): [string, Cooldown][] {
    return [...this.map.entries()]
  }
  /** Resolves once every change so far is stored. */
  settled(): Promise<void> {
    return this.writing
  }

  private flush(): void {
    const entries = this.entries()
    this.writing = this.writing.then(() => this.save(entries)).catch(() => {})
  }
}

function stateStore(): UseStore | undefined {
  try {
    return typeof indexedDB === 'undefined' ? undefined : createStore('docpilot-state', 'kv')
  } catch {
    return undefined
  }
}

/**
 * The cooldowns of one site (IndexedDB is already per origin; the key names the index too). Every turn
 * waits for them: an IndexedDB that does not answer starts with none rather than holding the turn.
 */
export async function loadCooldowns(site: string, store: UseStore | undefined = stateStore()): Promise<PersistentCooldowns> {
  const key = `cooldowns:${site}`
  const snapshot = (await lookup<Snapshot>(key, store)) ?? []
  return new PersistentCooldowns(snapshot, async (entries) => {
    if (store) await set(key, entries, store)
  })
}
