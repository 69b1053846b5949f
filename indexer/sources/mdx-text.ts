/** How MDX writes literal characters and where its ESM begins; shared by the MDX reader (mdx-source.ts) and its tests. */

/** `{'<'}` and `{"{"}` are how MDX escapes characters; keep the character. Any other expression is ''. */
export function stringLiteral(expr: string): string {
  const m = /^\s*(['"`])([^'"`]*)\1\s*$/.exec(expr)
  return m ? m[2]! : ''
}

/** The first line of an ESM block (`import … from '…'`, `export const …`), as opposed to prose that starts with "import". */
export const ESM_LINE = /^(?:import\s+(?:[\w*{][^'"]*\sfrom\s+)?['"]|export\s+(?:const|let|var|default|function|\{))/
