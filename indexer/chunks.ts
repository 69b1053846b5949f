/**
 * Sections -> chunk records. A section longer than `maxWords` becomes
 * overlapping windows that keep the section's trail and anchor, so every
 * window still cites the heading it came from. Chunk ids are unique within
 * the index.
 */
import type { ChunkRecord } from '../core/index-format.ts'
import type { DocpilotConfig } from '../core/config/schema.ts'
import type { PageSections } from './sections.ts'

export function windowText(text: string, { maxWords, overlapWords }: DocpilotConfig['chunks']): string[] {
  const words = [...text.matchAll(/\S+/g)]
  if (words.length <= maxWords) return text.trim() ? [text.trim()] : []
  const step = Math.max(1, maxWords - Math.min(overlapWords, maxWords - 1))
  const windows: string[] = []
  for (let start = 0; ; start += step) {
    const end = Math.min(start + maxWords, words.length)
    const from = words[start]!.index
    const last = words[end - 1]!
    windows.push(text.slice(from, last.index + last[0].length))
    if (end === words.length) break
  }
  return windows
}

export function toChunks(
  page: PageSections,
  where: { path: string; url: string },
  chunking: DocpilotConfig['chunks'],
): ChunkRecord[] {
  const chunks: ChunkRecord[] = []
  // On a built page, sections under a heading without an id share their parent's anchor; their ids stay unique.
  const sharing = new Map<string, number>()
  for (const section of page.sections) {
    const windows = windowText(section.text, chunking)
    if (!windows.length) continue
    const shared = sharing.get(section.anchor) ?? 0
    sharing.set(section.anchor, shared + 1)
    windows.forEach((text, w) => {
      const base = `${where.path}#${section.anchor}${shared ? `@${shared}` : ''}`
      chunks.push({
        id: windows.length > 1 ? `${base}~${w}` : base,
        path: where.path,
        url: where.url,
        anchor: section.anchor,
        title: page.title,
        trail: section.trail,
        text,
      })
    })
  }
  return chunks
}
