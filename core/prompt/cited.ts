/** Which passages an answer cites: the numbers in its `[n]` and `[n, m]` markers (never a Markdown link's `[text](url)`). */
export function citedNumbers(text: string, count: number): number[] {
  const seen = new Set<number>()
  for (const m of text.matchAll(/\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\()/g)) {
    for (const n of m[1]!.split(',')) {
      const i = Number(n.trim())
      if (i >= 1 && i <= count) seen.add(i)
    }
  }
  return [...seen].sort((a, b) => a - b)
}
