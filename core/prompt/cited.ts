/**
 * A citation marker. The prompt asks for `[n]`; models also write `[n, m]`,
 * `[n][m]` (two markers), ranges `[1-3]`, footnotes `[^n]` and CJK brackets
 * `【n】`, and each of those means the same passages. Never a Markdown
 * link's `[text](url)`.
 */
const LIST = String.raw`\d{1,3}(?:\s*[-–]\s*\d{1,3})?(?:\s*[,;]\s*\d{1,3}(?:\s*[-–]\s*\d{1,3})?)*`
export const CITATION_MARKER = new RegExp(String.raw`\[\^?(${LIST})\](?!\()|【(${LIST})】`)

/** A range longer than this is no citation anyone means: only its two ends are read. */
const MAX_RANGE = 20

/** The numbers inside one marker's brackets ("1, 2" -> [1, 2]; "1-3" -> [1, 2, 3]). */
export function markerNumbers(inside: string): number[] {
  return inside.split(/[,;]/).flatMap((part) => {
    const [a, b] = part.split(/[-–]/).map((n) => Number(n.trim()))
    if (b === undefined) return [a!]
    if (b <= a! || b - a! > MAX_RANGE) return [a!, b]
    return Array.from({ length: b - a! + 1 }, (_, i) => a! + i)
  })
}

/** What a marker match cites, whichever bracket form it took. */
export function matchNumbers(match: RegExpMatchArray): number[] {
  return markerNumbers(match[1] ?? match[2]!)
}

// Code the answer quotes (`arr[1]`, a fenced block) holds brackets, not citations: the renderer leaves them as code too.
const CODE = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]+`/g

/** Which passages an answer cites: the numbers in its markers within 1..count, ascending. */
export function citedNumbers(text: string, count: number): number[] {
  const seen = new Set<number>()
  for (const m of text.replace(CODE, ' ').matchAll(new RegExp(CITATION_MARKER.source, 'g'))) {
    for (const n of matchNumbers(m)) if (n >= 1 && n <= count) seen.add(n)
  }
  return [...seen].sort((a, b) => a - b)
}

/** The text with its citation markers taken out (code kept as written). */
export function withoutMarkers(text: string): string {
  const either = new RegExp(`(${CODE.source})|\\s?(?:${CITATION_MARKER.source})`, 'g')
  return text.replace(either, (_, code: string | undefined) => code ?? '')
}
