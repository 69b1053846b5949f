import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { ConfigSchema } from '../core/config/schema.ts'
import { validateConfig } from '../core/config/validate.ts'
import { configJsonSchema } from './config-schema.ts'

const DOCS = join(import.meta.dirname, '../docs')

/**
 * The docs' example configs: each `export default { ... }` block that sets a docpilot field (a framework's
 * config, such as Docusaurus' with docpilot in its plugins, sets none), and each JSON block naming `$schema`.
 */
function docsExamples(): Array<{ where: string; config: Record<string, unknown> }> {
  const examples = []
  for (const name of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(DOCS, name), 'utf8')
    for (const block of text.matchAll(/```(ts|js|json)\n([\s\S]*?)```/g)) {
      const where = `docs/${name}:${text.slice(0, block.index).split('\n').length}`
      const body = block[2]!
      let config: Record<string, unknown> | undefined
      if (block[1] === 'json' && body.includes('"$schema"')) config = JSON.parse(body) as Record<string, unknown>
      const literal = /^export default (\{[\s\S]*\})\s*$/m.exec(body)?.[1]
      // The examples are plain object literals: evaluated as written.
      if (literal) config = new Function(`return (${literal})`)() as Record<string, unknown>
      if (config && Object.keys(config).some((key) => key === '$schema' || Object.hasOwn(ConfigSchema.shape, key))) examples.push({ where, config })
    }
  }
  return examples
}

describe('the JSON schema shipped for docpilot.config.json', () => {
  const check = new Ajv2020({ strict: false, allErrors: true }).compile(configJsonSchema())

  it("accepts every example config in the docs, as the CLI does (a JSON one's $schema taken off)", () => {
    const examples = docsExamples()
    // Files, not lines: the check must not go quiet when a page moves, nor pass on a page that lost its examples.
    const files = new Set(examples.map((e) => e.where.split(':')[0]))
    expect([...files]).toEqual(expect.arrayContaining(['docs/configuration.md', 'docs/getting-started.md', 'docs/sources-and-anchors.md']))
    expect(examples.some((e) => '$schema' in e.config)).toBe(true)
    for (const { where, config } of examples) {
      expect(check(config) ? [] : check.errors, where).toEqual([])
      const { $schema: _, ...settings } = config
      expect(() => validateConfig(settings, where), where).not.toThrow()
    }
  })

  it('refuses what the CLI refuses for a field and a key: a misspelt setting, a value of the wrong kind, a word not on the list', () => {
    for (const config of [{ chat: { modle: 'gpt-4o' } }, { urls: { bse: '/docs/' } }, { chunks: { maxWords: 10 } }, { anchors: { slugger: 'hugo' } }, { out: 3 }]) {
      expect(check(config), JSON.stringify(config)).toBe(false)
      expect(() => validateConfig(config, 'x.json'), JSON.stringify(config)).toThrow()
    }
  })
})
