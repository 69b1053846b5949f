/**
 * What MDX leaves in text when it is read as plain Markdown (strict MDX
 * rejected the page), and how MDX writes literal characters. Shared by the
 * section text (markdown.ts) and the page copies (page-copy.ts).
 */

/** `{'<'}` and `{"{"}` are how MDX escapes characters; keep the character. Any other expression is ''. */
export function stringLiteral(expr: string): string {
  const m = /^\s*(['"`])([^'"`]*)\1\s*$/.exec(expr)
  return m ? m[2]! : ''
}

/** In lenient mode MDX comments and `{'x'}` escapes arrive as literal text. */
export function dropMdxExpressions(text: string): string {
  return text.replace(/\{\/\*[\s\S]*?\*\/\}/g, '').replace(/\{(['"`])([^'"`]*)\1\}/g, '$2')
}

const ESM_LINE = /^(?:import\s+(?:[\w*{][^'"]*\sfrom\s+)?['"]|export\s+(?:const|let|var|default|function|\{))/

/** Plain-Markdown parsing of MDX leaves `import ...` lines as paragraphs. */
export function dropEsmLines(text: string): string {
  if (!/(^|\n)(import|export)\s/.test(text)) return text
  return text
    .split('\n')
    .filter((line) => !ESM_LINE.test(line))
    .join('\n')
}
