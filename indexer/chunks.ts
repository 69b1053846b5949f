/**
 * Sections -> chunk records. A section longer than `maxWords` becomes
 * overlapping windows that keep the section's trail and anchor, so every
 * window still cites the heading it came from. Chunk ids are unique within
 * the index.
 */
import type { ChunkRecord } from '../core/index/format.ts'
import type { DocpilotConfig } from '../core/config/schema.ts'
import type { PageSections } from './sections.ts'

export function windowText(text: string, { maxWords, overlapWords }: DocpilotConfig['chunks']): string[] {
  const words = wordSpans(text, maxWords)
  if (!words) return text.trim() ? [text.trim()] : []
  const step = Math.max(1, maxWords - Math.min(overlapWords, maxWords - 1))
  const count = words.length / 2
  const windows: string[] = []
  for (let start = 0; ; start += step) {
    const end = Math.min(start + maxWords, count)
    windows.push(text.slice(words[2 * start]!, words[2 * end - 1]!))
    if (end === count) break
  }
  return windows
}

/**
 * Start and end offsets of the text's words (runs of non-space, as `\S+`),
 * flat in one array; undefined when there are no more than `atMost` words,
 * which most sections are (no window to cut, nothing to allocate).
 */
function wordSpans(text: string, atMost: number): number[] | undefined {
  let count = 0
  let inWord = false
  for (let i = 0; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i))
    if (!space && !inWord) count++
    inWord = !space
  }
  if (count <= atMost) return undefined
  const spans: number[] = []
  inWord = false
  for (let i = 0; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i))
    if (!space && !inWord) spans.push(i)
    else if (space && inWord) spans.push(i)
    inWord = !space
  }
  if (inWord) spans.push(text.length)
  return spans
}

/** What `\s` matches in a JavaScript regular expression. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13)
  if (c < 160) return false
  return c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
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
