/**
 * A code block written for Twoslash (VitePress, Shiki: ```ts twoslash) as
 * readers see it rendered. Its markers hide set-up code from the page (a
 * `// ---cut---` hides every line above it) and its directives (`// @errors:
 * 2304`, `// ^?`) become tooltips, not lines: indexed as written, a search
 * result would show the hidden imports and the markers themselves.
 */

/** The info string names Twoslash among its words (`ts twoslash`, `tsx twoslash title="x"`). */
export function isTwoslash(lang: string | undefined): boolean {
  return Boolean(lang && /(?:^|\s)twoslash(?:\s|$)/.test(lang))
}

const CUT_BEFORE = /^\s*\/\/\s*---cut(?:-before)?---\s*$/
const CUT_AFTER = /^\s*\/\/\s*---cut-after---\s*$/
const CUT_START = /^\s*\/\/\s*---cut-start---\s*$/
const CUT_END = /^\s*\/\/\s*---cut-end---\s*$/
/** A compiler flag or handbook option (`// @errors: 2304`, `// @noErrors`). */
const DIRECTIVE = /^\s*\/\/\s*@[A-Za-z]+(?::.*)?$/
/** A query or completion marker under a line (`//  ^?`, `// ^|`, `// ^^^`). */
const QUERY = /^\s*\/\/\s*\^+[?|]?\s*$/

/** The lines of `code` a reader sees once Twoslash has rendered it. */
export function twoslashShown(code: string): string {
  let lines = code.split('\n')
  const lastCut = lines.findLastIndex((line) => CUT_BEFORE.test(line))
  if (lastCut >= 0) lines = lines.slice(lastCut + 1)
  const after = lines.findIndex((line) => CUT_AFTER.test(line))
  if (after >= 0) lines = lines.slice(0, after)
  const shown: string[] = []
  let hidden = false
  for (const line of lines) {
    if (CUT_START.test(line)) hidden = true
    else if (CUT_END.test(line)) hidden = false
    else if (!hidden && !DIRECTIVE.test(line) && !QUERY.test(line)) shown.push(line)
  }
  return shown.join('\n').replace(/^\n+|\n+$/g, '')
}
