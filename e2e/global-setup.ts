/**
 * Builds what every spec serves, once: the widget (dist/widget/) and two
 * indexes of the fixture site (the default embedder, and a declared
 * lexical-only one). Specs start their own dev server over them.
 */
import { rm } from 'node:fs/promises'
import { validateConfig } from '../core/config/validate.ts'
import { buildIndex } from '../indexer/build.ts'
import { buildWidget } from '../widget/vite.config.ts'
import { E2E_DOCS, E2E_INDEX, E2E_LEXICAL_INDEX, E2E_WIDGET } from './paths.ts'

export default async function globalSetup(): Promise<void> {
  await Promise.all([E2E_INDEX, E2E_LEXICAL_INDEX].map((dir) => rm(dir, { recursive: true, force: true })))
  // 'default' is the offline embedder: the e2e index never depends on keys in the environment.
  const index = (out: string, embed: false | 'default') =>
    buildIndex({ root: E2E_DOCS, mode: 'source', out, config: validateConfig({ embed }, '(e2e)'), docpilotVersion: 'e2e' })
  await Promise.all([buildWidget(E2E_WIDGET), index(E2E_INDEX, 'default'), index(E2E_LEXICAL_INDEX, false)])
}
