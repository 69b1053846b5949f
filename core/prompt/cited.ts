/** A citation marker: `[n]` or `[n, m]` (`[1][2]` is two); never a Markdown link's `[text](url)`. */
export const CITATION_MARKER = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\()/

/** The numbers inside one marker's brackets ("1, 2" -> [1, 2]). */
export function markerNumbers(inside: string): number[] {
  return inside.split(',').map((n) => Number(n.trim()))
}

/** Which passages an answer cites: the numbers in its markers within 1..count, ascending. */
export function citedNumbers(text: string, count: number): number[] {
  const seen = new Set<number>()
  for (const m of text.matchAll(new RegExp(CITATION_MARKER.source, 'g'))) {
    for (const n of markerNumbers(m[1]!)) if (n >= 1 && n <= count) seen.add(n)
  }
  return [...seen].sort((a, b) => a - b)
}
