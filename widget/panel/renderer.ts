/**
 * The Markdown renderer, fetched on demand: the panel opens and takes a
 * question before marked and DOMPurify arrive (they are most of its weight).
 * Until they do, or if their chunk cannot be fetched, an answer is shown as
 * plain text, which is just as safe.
 */
import { useEffect, useState } from 'preact/hooks'

type Render = (typeof import('./markdown.ts'))['renderAnswer']

let ready: Render | undefined
let loading: Promise<Render | undefined> | undefined

/** Starts fetching the renderer (once); a failed fetch is retried on the next call. */
export function loadRenderer(): Promise<Render | undefined> {
  loading ??= import('./markdown.ts').then(
    (m) => (ready = m.renderAnswer),
    () => {
      loading = undefined
      return undefined
    },
  )
  return loading
}

/** The renderer once it is here; re-renders the caller when it arrives. */
export function useRenderer(): Render | undefined {
  const [render, setRender] = useState<Render | undefined>(() => ready)
  useEffect(() => {
    if (render) return
    let live = true
    void loadRenderer().then((r) => live && r && setRender(() => r))
    return () => {
      live = false
    }
  }, [render])
  return render
}
