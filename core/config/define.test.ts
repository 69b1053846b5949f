/**
 * The main entry an owner's docpilot.config.ts imports. The type checks below
 * are checked by `tsc` (npm run typecheck), not when vitest runs them: an
 * `@ts-expect-error` that no longer meets an error fails the typecheck.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import { defineConfig, type DocpilotConfig } from './define.ts'
import { validateConfig } from './validate.ts'

describe('defineConfig', () => {
  it('returns the config (or the function returning it) as given, and what it types is what the CLI accepts', async () => {
    const config = { docs: { dir: 'docs' }, anchors: { slugger: 'vitepress' }, chat: { chain: 'auto' } } satisfies DocpilotConfig
    expect(defineConfig(config)).toBe(config)
    const later = async () => config
    expect(defineConfig(later)).toBe(later)
    expect(validateConfig(defineConfig(config), 'docpilot.config.ts').anchors.slugger).toBe('vitepress')
  })

  it('types every field as the schema reads it: a misspelt field or a wrong value is a type error', () => {
    expectTypeOf(defineConfig({})).toEqualTypeOf<DocpilotConfig>()
    expectTypeOf<DocpilotConfig['out']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<{ anchors: { slugger: 'vitepress' } }>().toExtend<DocpilotConfig>()
    expectTypeOf<{ anchors: { slugger: 'hugo' } }>().not.toExtend<DocpilotConfig>()
    // @ts-expect-error `chatt` is no field
    defineConfig({ chatt: { provider: 'openai' } })
    // @ts-expect-error `provder` is no field of chat
    defineConfig({ chat: { provder: 'openai' } })
    // @ts-expect-error a misspelt field beside a right one
    defineConfig({ docs: { dir: 'docs' }, ouut: 'public/docpilot' })
    // @ts-expect-error not a provider
    defineConfig({ chat: { provider: 'openia' } })
  })
})
