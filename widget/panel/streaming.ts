/**
 * A streamed answer is rendered again with every chunk, and a chunk can end
 * inside Markdown: `see [1` before its `]`, a link before its `)` (which
 * marked autolinks, cut URL and all), `**Note` before the closing `**`.
 * Rendered as it stands, that is raw syntax that turns into a link or bold a
 * moment later. While the answer streams, an open bracket at its edge is held
 * back until the chunk that closes it, and open bold or inline code is closed
 * for the moment; the settled answer is rendered exactly as written.
 */

/** A bracket still open at the end: a citation (`[1`, `[1, 2`, `【1`), a link's text or its URL, or `[n]` that a `(` may yet turn into a link. */
const OPEN_BRACKET = /(?:【[^】\n]*|\[[^[\]\n]*(?:\](?:\([^)\s]*)?)?)$/

/** Longer than this, an open `[` is prose or code, not a marker still arriving: shown rather than held. */
const HOLD_LIMIT = 200

/** What to render of an answer still streaming. */
export function streamingMarkdown(text: string): string {
  // Inside a code block that is still open everything is code already (marked draws an unclosed fence as one).
  if ((text.match(/^ {0,3}(?:```|~~~)/gm)?.length ?? 0) % 2 === 1) return text
  // Only the tail is looked at: the answer is re-read on every chunk, and a bracket further back is not held anyway.
  const tail = text.slice(-HOLD_LIMIT)
  const open = OPEN_BRACKET.exec(tail)
  const shown = open ? text.slice(0, text.length - tail.length + open.index) : text
  const line = shown.slice(shown.lastIndexOf('\n') + 1)
  if ((line.match(/`/g)?.length ?? 0) % 2 === 1) return closed(shown, '`')
  if ((line.replace(/`[^`]*`/g, '').match(/\*\*/g)?.length ?? 0) % 2 === 1) return closed(shown, '**')
  return shown
}

/** Closed by its marker, or, when the marker is all there is so far, without it. */
function closed(text: string, marker: string): string {
  return text.endsWith(marker) ? text.slice(0, -marker.length) : `${text}${marker}`
}
