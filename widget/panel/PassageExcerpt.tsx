/** A passage's excerpt: legible and marked once the rich renderer is here, its opening words as plain text until then. */
import { useMemo } from 'preact/hooks'
import type { LexicalSettings } from '../../core/retrieval/lexical.ts'
import { oneLineClipped } from '../../core/text/one-line.ts'
import { useRenderer } from './renderer.ts'

const PLAIN_CHARS = 320

export interface ExcerptSource {
  /** The question whose matched terms are marked. */
  question: string
  /** The index's BM25 settings (absent until the manifest is in: nothing is marked). */
  lexical: LexicalSettings | undefined
}

export function PassageExcerpt({ text, source }: { text: string; source: ExcerptSource }) {
  const rich = useRenderer()
  const mark = useMemo(() => rich?.termMarker(source.question, source.lexical), [rich, source.question, source.lexical])
  if (rich && mark) return <rich.Excerpt text={text} mark={mark} />
  return (
    <div class="dp-excerpt" dir="auto">
      <p>{oneLineClipped(text, PLAIN_CHARS)}</p>
    </div>
  )
}
