/**
 * The widget's IndexedDB is a shortcut, never a wait. An IndexedDB open can
 * hang for good (Safari 14.1 did on a first visit), and idb-keyval then holds
 * every later request behind it: a lookup that has not answered in
 * STORE_WAIT_MS counts as a miss, and the reader goes on without it.
 */
import { get, type UseStore } from 'idb-keyval'
import { withinMs } from '../core/abort.ts'

/** How long a lookup may keep the reader waiting. */
export const STORE_WAIT_MS = 2_000

/** The value under `key`, or undefined when there is none, no store, a failure, or no answer in time. */
export function lookup<T>(key: string, store: UseStore | undefined): Promise<T | undefined> {
  if (!store) return Promise.resolve(undefined)
  return withinMs(get<T>(key, store), STORE_WAIT_MS, () => new Error(`IndexedDB did not answer in ${STORE_WAIT_MS} ms`)).catch(() => undefined)
}
