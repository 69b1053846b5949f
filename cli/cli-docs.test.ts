/**
 * docs/cli.md is the reference an owner reads instead of `--help`: every
 * command has a row in its overview table and a section whose option table
 * lists exactly the flags and arguments the command accepts, written as
 * `--help` writes them.
 */
import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import { buildProgram, COMMANDS } from './main.ts'

const DOC = readFileSync(new URL('../docs/cli.md', import.meta.url), 'utf8')

function section(name: string): string {
  const start = DOC.indexOf(`\n## docpilot ${name}\n`)
  if (start < 0) return ''
  const end = DOC.indexOf('\n## ', start + 1)
  return DOC.slice(start, end < 0 ? undefined : end)
}

/** The first cell of each row of the section's option table. */
function documentedFlags(text: string): string[] {
  return [...text.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!)
}

/** What `--help` lists for a command: its arguments as [name] / <name>, then each option's flags. */
function helpFlags(cmd: Command): string[] {
  const args = cmd.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? '...' : ''}`
    return a.required ? `<${name}>` : `[${name}]`
  })
  return [...args, ...cmd.options.map((o) => o.flags)]
}

describe('docs/cli.md', async () => {
  const ctx = { cwd: '.', env: {}, stdout: () => {}, stderr: () => {}, stderrIsTTY: false, version: '0' }
  const program = await buildProgram(ctx)

  it('has every command in its overview table, and no command that does not exist', () => {
    const listed = [...DOC.matchAll(/^\| \[`(\w+)[^`]*`\]\(#docpilot-\w+\) \|/gm)].map((m) => m[1])
    expect(listed.sort()).toEqual(Object.keys(COMMANDS).sort())
  })

  for (const name of Object.keys(COMMANDS)) {
    it(`documents exactly the flags and arguments of \`docpilot ${name}\``, () => {
      const cmd = program.commands.find((c) => c.name() === name)!
      const text = section(name)
      expect(text, `docs/cli.md has no "## docpilot ${name}" section`).not.toBe('')
      expect(documentedFlags(text).sort()).toEqual(helpFlags(cmd).sort())
    })
  }
})
