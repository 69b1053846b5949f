/**
 * The JSON schema of docpilot.config.json, made from the config's own zod schema
 * (core/config/schema.ts), so an editor completes and checks the same fields the CLI
 * validates. Written to dist/config.schema.json by `npm run build:node`; a config file
 * names it with `"$schema"`, which the CLI takes off before validation (cli/config-file.ts).
 *
 * What JSON schema cannot say (a chain naming a member twice, an embedder that cannot
 * embed) is left to the CLI, which still refuses it with the file, field and fix.
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import * as z from 'zod'
import { ConfigSchema } from '../core/config/schema.ts'

export const CONFIG_SCHEMA_FILE = 'config.schema.json'

export function configJsonSchema(): Record<string, unknown> {
  // The input side: what an owner writes, every field optional.
  const schema = z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown> & { properties: Record<string, unknown> }
  return {
    ...schema,
    title: 'docpilot.config.json',
    // The key that names this schema is allowed beside the settings (the config is otherwise strict).
    properties: { $schema: { type: 'string', description: 'The JSON schema editors check this file with; docpilot ignores it.' }, ...schema.properties },
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = resolve(import.meta.dirname, '../dist', CONFIG_SCHEMA_FILE)
  writeFileSync(file, `${JSON.stringify(configJsonSchema(), null, 2)}\n`)
}
