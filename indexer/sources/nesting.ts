/**
 * How deeply a page nests, measured the same way on every machine, so a
 * page over the limit is skipped before its parse can run away (a
 * tokenizer recurses into each nested list and quote: with remark, 1,000
 * indentation-nested list levels took 31 s and 2,000 did not finish).
 */
import { closingFenceLine } from './fence.ts'

const SPACE = 0x20
const TAB = 0x09

/**
 * A Markdown/MDX page's nesting, estimated from its lines without parsing:
 * on each line, one level per block-quote or list marker that opens it plus
 * one per two columns of the line's indentation (a tab is four), the way lists nest by
 * indentation. Lines inside fenced code are not counted (code may be indented
 * as deeply as it likes). An overestimate for odd indentation, never an
 * underestimate for nested containers.
 *
 * Every page of a build passes through here before its parse: a line is read
 * by character codes where it stands (not split, sliced and matched), and the
 * lines of fenced code (two in five on the astro docs) are skipped by one
 * search for the line that closes the fence.
 */
export function markdownNesting(source: string): number {
  let deepest = 0
  /** The open fence's character (a backtick or a tilde) and length; 0 when none is open. */
  let fenceChar = 0
  let fenceLength = 0
  for (let at = 0; at <= source.length; ) {
    const found = source.indexOf('\n', at)
    const eol = found === -1 ? source.length : found
    let q = at
    let levels = 0
    let columns = 0
    for (;;) {
      let c = source.charCodeAt(q)
      if (c === SPACE || c === TAB) {
        // Indentation counts before the first marker; after one it only separates markers.
        do {
          if (levels === 0) columns += c === TAB ? 4 - (columns % 4) : 1
          c = source.charCodeAt(++q)
        } while (c === SPACE || c === TAB)
        continue
      }
      const marker = fenceChar ? 0 : markerLength(source, q, eol)
      if (!marker) break
      levels++
      q += marker
    }
    const fence = fenceRun(source, q)
    at = eol + 1
    if (fenceChar) {
      if (fence >= fenceLength && source.charCodeAt(q) === fenceChar && !source.slice(q + fence, eol).trim()) fenceChar = 0
      continue
    }
    deepest = Math.max(deepest, levels + Math.floor(columns / 2))
    if (fence) {
      fenceChar = source.charCodeAt(q)
      fenceLength = fence
      // On to the line that closes it (read above, which closes the fence); none does: the rest is code.
      const close = closingFenceLine(source, at, String.fromCharCode(fenceChar).repeat(fenceLength))
      if (close === -1) break
      at = close
    }
  }
  return deepest
}

/**
 * The length of the container marker at `q` (before `eol`), 0 if none: a block-quote `>`, or a bullet (`-`, `*`, `+`)
 * or a number of up to nine digits closed by `.` or `)`, followed by a space, a tab or the line's end.
 */
function markerLength(source: string, q: number, eol: number): number {
  const c = source.charCodeAt(q)
  if (c === 0x3e) return 1
  let end = q
  if (c === 0x2d || c === 0x2a || c === 0x2b) {
    end = q + 1
  } else {
    while (end < eol && isDigit(source.charCodeAt(end))) end++
    const digits = end - q
    const close = source.charCodeAt(end)
    if (digits === 0 || digits > 9 || (close !== 0x2e && close !== 0x29)) return 0
    end++
  }
  const after = source.charCodeAt(end)
  return end === eol || after === SPACE || after === TAB ? end - q : 0
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39

/** The length of a code fence marker (three or more backticks, or tildes) at `q`, 0 if none. */
function fenceRun(source: string, q: number): number {
  const c = source.charCodeAt(q)
  if (c !== 0x60 && c !== 0x7e) return 0
  let end = q
  while (source.charCodeAt(end) === c) end++
  return end - q >= 3 ? end - q : 0
}

/** Elements that never hold children. */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr'])
/** Elements whose end tag may be left out: the next sibling closes them, so they are not counted as nesting. */
const OPTIONAL_END = new Set(['html', 'head', 'body', 'p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'option', 'optgroup', 'rt', 'rp', 'rb', 'rtc', 'colgroup', 'caption'])
/** Elements whose content is text up to their end tag (a `<div>` inside a script is not an element). */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext'])
const TAG = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][^\s/>]*)[^>]*?(\/?)>/g

/**
 * A built HTML page's element nesting, counted on its tags before any tree
 * is built (the HTML-to-tree conversion recurses, so a 100,000-deep page
 * would overflow the stack, at a depth that differs between machines): open
 * tags minus end tags, leaving out void elements, self-closed tags and
 * elements whose end tag is optional.
 */
export function htmlNesting(source: string): number {
  let depth = 0
  let deepest = 0
  TAG.lastIndex = 0
  for (let m = TAG.exec(source); m; m = TAG.exec(source)) {
    const name = m[2]?.toLowerCase()
    if (!name || VOID.has(name) || OPTIONAL_END.has(name)) continue
    if (m[1]) {
      depth = Math.max(0, depth - 1)
      continue
    }
    if (m[3]) continue
    if (RAW_TEXT.has(name)) {
      const end = source.toLowerCase().indexOf(`</${name}`, TAG.lastIndex)
      TAG.lastIndex = end === -1 ? source.length : end
    }
    depth++
    deepest = Math.max(deepest, depth)
  }
  return deepest
}

/** A page that nests deeper than docs.maxNesting; it is skipped with a warning naming the limit. */
export class NestingLimitError extends Error {
  override name = 'NestingLimitError'
  constructor(
    readonly depth: number,
    readonly limit: number,
  ) {
    super(`nests ${depth} levels deep, over the per-file limit docs.maxNesting = ${limit}; skipped (raise docs.maxNesting to index it)`)
  }
}
