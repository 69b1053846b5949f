/**
 * A chunk's text is plain text: the indexer keeps code and table cells but
 * drops their Markdown (fences, pipes at the edges, the header rule). This
 * reads the structure back so readers see code as code and tables as tables,
 * whether the panel shows a passage or a fake model quotes one.
 *
 * Prose paragraphs arrive as one line with single spaces and no indentation
 * (the indexer joins a paragraph's wrapped lines); code keeps its lines and
 * whitespace; table rows are cells joined by " | ". Blocks are separated by
 * blank lines; code that had blank lines inside comes back together as one
 * block. A passage may start or end inside a paragraph or a code block.
 */

export type Block =
  | { kind: 'prose'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'table'; rows: string[][] }

const CELL_SEPARATOR = ' | '

function cells(line: string): string[] {
  return line.split(CELL_SEPARATOR).map((c) => c.trim())
}

function isTable(lines: readonly string[]): boolean {
  if (lines.length < 2) return false
  const width = cells(lines[0]!).length
  return width >= 2 && lines.every((l) => cells(l).length === width)
}

// Shell commands people paste into docs, and the shapes only code has.
const COMMAND = /^(?:\$ \S|(?:npm|npx|pnpm|pnpx|yarn|bun|bunx|deno|curl|wget|git|docker|wrangler|node|cd|mkdir|touch|export|brew|pip|cargo|go)(?: |$))/
const KEYWORD = /^(?:\/\/|\/\*|#!|<\/?[a-zA-Z][\w.-]*[\s>/]|(?:import|export|const|let|var|function|async|await|return|class|interface|throw|def) |from \w+ import)/
/** Layout only code keeps: prose arrives with single spaces and no indentation. */
const CODE_LAYOUT = [
  /^\s/, // indentation
  /\S {2,}\S/, // aligned columns
  /\t/,
  /[├└│]/, // a file tree
]
const CODE_LINE = [
  ...CODE_LAYOUT,
  /[{[(;]$/, // an open block or argument list, a statement end
  /^[}\])]/,
  KEYWORD,
]
/** Ends like a sentence and reads like one: at least two plain words in a row. */
const SENTENCE_END = /[.!?:]["'”’)]?$/
/** A command line, unless it is a sentence that starts with a tool's name ("npm does not ..."). */
const isCommand = (line: string) => COMMAND.test(line) && !SENTENCE_END.test(line)
const WORDS = /[a-z]{2,} [a-z]{2,}/i
/** Four plain words in a row: a sentence, even without its full stop. */
const PHRASE = /(?:^|\s)(?:[A-Za-z][A-Za-z]*,? ){3}[A-Za-z][a-z]+/
/** A line of symbols (calls, paths, assignments) or of lowercase tokens only (a command). */
const CODE_SHAPED = /=>|<\/|=\{|[(){}[\]=<>/"`$]|^[a-z][\w.-]*(?: [\w./@:<>-]+)*$/

/** Opens as code does, whatever follows: a comment, a shebang, a prompt. */
const CODE_OPENING = /^(?:\/\/|\/\*|#!|\$ )/

/**
 * A paragraph is one line, and one that reads as sentences is prose even when
 * it opens with a tag or a tool's name ("<Aside> holds a note.", "npm init -y
 * makes a CommonJS project.").
 */
export const readsAsSentence = (line: string): boolean =>
  !CODE_OPENING.test(line) && !CODE_LAYOUT.some((re) => re.test(line)) && SENTENCE_END.test(line) && PHRASE.test(line) && !/[{};]\s*$/.test(line)

function isCode(lines: readonly string[]): boolean {
  if (lines.length === 1 && readsAsSentence(lines[0]!)) return false
  if (lines.some((line) => isCommand(line) || CODE_LINE.some((re) => re.test(line)))) return true
  const joined = lines.join(' ')
  if ((SENTENCE_END.test(lines.at(-1)!) && WORDS.test(joined)) || PHRASE.test(joined)) return false
  return lines.every((line) => CODE_SHAPED.test(line))
}

/** The blocks of a chunk's text, in order. */
export function textBlocks(text: string): Block[] {
  const blocks: Block[] = []
  for (const para of text.split(/\n[ \t]*\n/)) {
    const lines = para.split('\n').filter((l) => l.trim() !== '')
    if (lines.length === 0) continue
    const last = blocks.at(-1)
    if (isTable(lines)) blocks.push({ kind: 'table', rows: lines.map(cells) })
    else if (isCode(lines)) {
      const code = lines.join('\n').replace(/\s+$/, '')
      // A blank line inside a code block split it in two: put it back together.
      if (last?.kind === 'code') last.text += `\n\n${code}`
      else blocks.push({ kind: 'code', text: code })
    } else blocks.push({ kind: 'prose', text: lines.map((l) => l.trim()).join(' ') })
  }
  return blocks
}
