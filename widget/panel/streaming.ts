/**
 * A streamed answer is rendered again with every chunk, and a chunk can end
 * inside Markdown: `see [1` before its `]`, a link before its `)` or a bare
 * URL before its end (which marked autolinks, cut URL and all), `**Note`
 * before the closing `**`, the first backticks of a code fence, the `-` or
 * `1.` that starts a list (which under a paragraph line first reads as a
 * heading's underline), a table's header row before its delimiter row.
 * Rendered as it stands, that is raw syntax that turns into a link, bold,
 * code, a list or a table a moment later, or prose set as a heading. While
 * the answer streams, what may still become syntax is held back until the
 * chunk that settles it, and open emphasis or inline code is closed for the
 * moment; the settled answer is rendered exactly as written.
 */

/** A bracket still open at the end: a citation (`[1`, `[1, 2`, `【1`), a link's text or its URL, or `[n]` that a `(` may yet turn into a link. */
const OPEN_BRACKET = /(?:【[^】\n]*|\[[^[\]\n]*(?:\](?:\([^)\s]*)?)?)$/

/** Longer than this, an open `[` is prose or code, not a marker still arriving: shown rather than held. */
const HOLD_LIMIT = 200

/**
 * A code fence line: its indentation (a list item's, a quote's `>`), its run of backticks or tildes, and the
 * rest. Any indentation counts: a fence inside a nested list item sits four spaces in or more, and a model
 * writes fences, not indented code.
 */
const FENCE_LINE = /^[ \t>]*(`{3,}|~{3,})(.*)$/

/**
 * A last line that may still become syntax: the start of a fence, a list marker (`-`, `*`, `+`, `1.`, `1)`)
 * with nothing after it yet, or a heading's underline (`-`, `=`).
 */
const MAY_BECOME_SYNTAX = /^[ \t>]*(?:`{1,2}|~{1,2}|[-+*=]+|\d{1,9}[.)]?)[ \t]*$/

interface Fence {
  char: string
  length: number
}

/** The code fence still open at the end of the text. As CommonMark reads one: only a run of its own character, at least as long and with nothing after it, closes it (a ```` fence or a ~~~ fence may show ``` lines as code). */
function openFence(text: string): Fence | undefined {
  let open: Fence | undefined
  for (const line of text.split('\n')) {
    const fence = FENCE_LINE.exec(line)
    if (!fence) continue
    const [, run = '', rest = ''] = fence
    if (open) {
      if (run[0] === open.char && run.length >= open.length && rest.trim() === '') open = undefined
    } else if (!(run[0] === '`' && rest.includes('`'))) {
      // (A backtick run with a backtick after it is inline code, not a fence.)
      open = { char: run[0]!, length: run.length }
    }
  }
  return open
}

/**
 * The text without a table still arriving: the run of `|` lines at its end while the line under the first of
 * them is missing, or is still arriving and may yet be the delimiter row.
 */
function withoutUnsettledTable(text: string): string {
  const lines = text.split('\n')
  // A last line with nothing in it yet is not part of the run; it may be the second line all the same.
  const end = lines.at(-1) === '' ? lines.length - 1 : lines.length
  let start = end
  while (start > 0 && /^ {0,3}\|/.test(lines[start - 1]!)) start--
  if (start === end) return text
  // Once a newline follows the second line, it has said whether this is a table: shown either way.
  if (start + 1 < lines.length - 1) return text
  if (!/^ {0,3}[|:\-\s]*$/.test(lines[start + 1] ?? '')) return text
  return lines.slice(0, start).map((l) => `${l}\n`).join('')
}

/** The backtick run that opened a code span still open at the end of the line: only a run of the same length closes it. */
function openCodeSpan(line: string): string | undefined {
  let open: string | undefined
  for (const [run] of line.matchAll(/`+/g)) {
    if (open === undefined) open = run
    else if (run === open) open = undefined
  }
  return open
}

/** What to render of an answer still streaming. */
export function streamingMarkdown(text: string): string {
  const lineStart = text.lastIndexOf('\n') + 1
  const fence = openFence(text)
  if (fence) {
    // Inside a code block that is still open everything is code already (marked draws an unclosed fence as
    // one), except a closing fence still arriving: its first backticks would be a line of code for a moment.
    const last = text.slice(lineStart).replace(/^[ \t>]*/, '')
    return last !== '' && [...last].every((c) => c === fence.char) ? text.slice(0, lineStart) : text
  }
  text = withoutUnsettledTable(text)
  if (MAY_BECOME_SYNTAX.test(text.slice(text.lastIndexOf('\n') + 1))) text = text.slice(0, text.lastIndexOf('\n') + 1)
  // Only the tail is looked at: the answer is re-read on every chunk, and a bracket further back is not held anyway.
  const tail = text.slice(-HOLD_LIMIT)
  const open = OPEN_BRACKET.exec(tail)
  let shown = open ? text.slice(0, text.length - tail.length + open.index) : text
  const lastLine = (t: string) => t.slice(t.lastIndexOf('\n') + 1)
  let closers = ''
  let span = openCodeSpan(lastLine(shown))
  if (!span) {
    // A bare URL still arriving is autolinked, cut and all, as a link's URL would be; its first letters are text
    // that turns into a link a moment later. Held back until a space ends it.
    const word = /(?:^|[\s(*_])(\S+)$/.exec(shown)?.[1]?.toLowerCase()
    if (word && (/^(?:https?:\/\/|www\.)/.test(word) || ['https://', 'http://', 'www.'].some((start) => start.startsWith(word)))) {
      shown = shown.slice(0, -word.length)
      span = openCodeSpan(lastLine(shown))
    }
  }
  if (span && !shown.endsWith(span)) {
    // Closed for the moment. Backticks at its end, fewer than the run that opened it, are its closing run still
    // arriving: left out, as with the closing run they would make a longer run, which closes nothing.
    shown = shown.replace(/`+$/, '')
    closers = span
  } else {
    // A span with nothing in it yet is left out; so is a run of * or _ at the very end, still arriving: the `*`
    // of `**`, or a closer whose length is not known yet.
    if (span) shown = shown.slice(0, -span.length)
    shown = shown.replace(/[*_]+$/, '')
  }
  // Emphasis still open is closed for the moment, innermost first, before any trailing spaces (a closer after a
  // space closes nothing). Code spans hold no emphasis.
  const emphasis = openEmphasis(lastLine(shown + closers).replace(/(`+)[^`]*?\1/g, 'x'))
  if (emphasis.length === 0) return shown + closers
  const spaces = closers ? '' : (/[ \t]+$/.exec(shown)?.[0] ?? '')
  return `${shown.slice(0, shown.length - spaces.length)}${closers}${emphasis.reverse().join('')}${spaces}`
}

/**
 * The emphasis markers (`*`, `**`, `_`, `__`) still open at the end of a line, in the order they opened: a run
 * opens when a non-space follows it and closes what it matches when a non-space precedes it; `_` inside a word
 * (snake_case) does neither, nor does a `*` between spaces (2 * 3) or a list bullet.
 */
function openEmphasis(line: string): string[] {
  const open: string[] = []
  for (const { 0: run, index: at } of line.matchAll(/\*+|_+/g)) {
    const char = run[0]!
    const before = line[at - 1] ?? ' '
    const after = line[at + run.length] ?? ' '
    const inWord = (c: string) => char === '_' && /[\p{L}\p{N}]/u.test(c)
    let left = run.length
    if (!/\s/.test(before) && !inWord(after)) {
      while (left > 0 && open.at(-1)?.[0] === char && open.at(-1)!.length <= left) left -= open.pop()!.length
    }
    if (left > 0 && !/\s/.test(after) && !inWord(before)) {
      // `***` opens emphasis with strong emphasis inside it.
      open.push(...(left === 3 ? [char, char + char] : [char.repeat(left)]))
    }
  }
  return open
}
