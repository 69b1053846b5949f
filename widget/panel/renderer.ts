/**
 * The rich renderer (rich.ts), fetched on demand: the panel opens and takes
 * a question before it arrives. Until it does, or if its chunk cannot be
 * fetched, answers and excerpts are shown as plain text, which is just as
 * safe.
 */
import { useEffect, useState } from 'preact/hooks'

export type Rich = typeof import('./rich.ts')

let ready: Rich | undefined
let loading: Promise<Rich | undefined> | undefined

/** Starts fetching the renderer (once); a failed fetch is retried on the next call. */
export function loadRenderer(): Promise<Rich | undefined> {
  loading ??= import('./rich.ts').then(
    (m) => (ready = m),
    () => {
      loading = undefined
      return undefined
    },
  )
  return loading
}

/** The renderer once it is here; re-renders the caller when it arrives. */
export function useRenderer(): Rich | undefined {
  const [rich, setRich] = useState<Rich | undefined>(() => ready)
  useEffect(() => {
    if (rich) return
    let live = true
    void loadRenderer().then((r) => live && r && setRich(() => r))
    return () => {
      live = false
    }
  }, [rich])
  return rich
}
