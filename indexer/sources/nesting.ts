/**
 * How deeply a page nests, measured the same way on every machine, so a
 * page over the limit is skipped before its parse can run away (a
 * tokenizer recurses into each nested list and quote: with remark, 1,000
 * indentation-nested list levels took 31 s and 2,000 did not finish).
 */

/** Leading container markers of a Markdown line: block quotes, list bullets and numbers. */
const MARKER = /^(?:>|[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))/
const FENCE = /^(`{3,}|~{3,})/

/**
 * A Markdown/MDX page's nesting, estimated from its lines without parsing:
 * on each line, one level per block-quote or list marker that opens it plus
 * one per two columns of the line's indentation (a tab is four), the way lists nest by
 * indentation. Lines inside fenced code are not counted (code may be indented
 * as deeply as it likes). An overestimate for odd indentation, never an
 * underestimate for nested containers.
 */
export function markdownNesting(source: string): number {
  let deepest = 0
  let fence: string | undefined
  for (const line of source.split('\n')) {
    let levels = 0
    let columns = 0
    let rest = line
    for (;;) {
      const space = /^[ \t]+/.exec(rest)
      if (space) {
        // Indentation counts before the first marker; after one it only separates markers.
        if (levels === 0) for (const ch of space[0]) columns += ch === '\t' ? 4 - (columns % 4) : 1
        rest = rest.slice(space[0].length)
        continue
      }
      const marker = fence ? null : MARKER.exec(rest)
      if (!marker) break
      levels++
      rest = rest.slice(marker[0].length)
    }
    const opensFence = FENCE.exec(rest)
    if (fence) {
      if (opensFence && opensFence[1]![0] === fence[0] && opensFence[1]!.length >= fence.length && !rest.slice(opensFence[1]!.length).trim()) fence = undefined
      continue
    }
    if (opensFence) fence = opensFence[1]
    deepest = Math.max(deepest, levels + Math.floor(columns / 2))
  }
  return deepest
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
