/**
 * Closing a fenced code block, the one reading every pass over a page's lines
 * shares (MDX-to-Markdown, page copies, the nesting pre-check): a line closes
 * a fence when, trimmed, it is only a run of the fence's character at least as
 * long as the run that opened it.
 */

/** Whether `line` closes the fence opened by `fence` (its run of backticks or tildes). */
export function closesFence(line: string, fence: string): boolean {
  const t = line.trim()
  return t.length >= fence.length && t[0] === fence[0] && /^(`+|~+)$/.test(t)
}

/** A line made only of a run of three or more backticks (or tildes), with whitespace around it (what trim() removes). */
const CLOSING_FENCE = { '`': /\n[^\S\n]*(`{3,})[^\S\n]*(?=\n|$)/g, '~': /\n[^\S\n]*(~{3,})[^\S\n]*(?=\n|$)/g }

/**
 * Where the first line from `from` on (`from` starts a line) that closes
 * `fence` starts, -1 if none. One search of the text instead of a look at each
 * line of code (code is two lines in five on the astro docs). Callers read the
 * line found as they read any line: a reading stricter than closesFence (the
 * nesting pre-check skips only spaces and tabs) then reads on from there.
 */
export function closingFenceLine(text: string, from: number, fence: string): number {
  const closing = CLOSING_FENCE[fence[0] as '`' | '~']
  closing.lastIndex = from - 1
  for (let m = closing.exec(text); m; m = closing.exec(text)) if (m[1]!.length >= fence.length) return m.index + 1
  return -1
}
