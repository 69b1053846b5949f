/**
 * Builds what every spec serves, once per run, into the run's own folder
 * (e2e/paths.ts): the widget and two indexes of the fixture site (the default
 * embedder, and a declared lexical-only one). Specs start their own dev
 * server over them. The returned teardown removes the folder.
 */
import { rm } from 'node:fs/promises'
import { validateConfig } from '../core/config/validate.ts'
import { buildIndex } from '../indexer/build.ts'
import { buildWidget } from '../widget/vite.config.ts'
import { E2E_DOCS, E2E_INDEX, E2E_LEXICAL_INDEX, E2E_RUN_DIR, E2E_WIDGET } from './paths.ts'

export default async function globalSetup(): Promise<() => Promise<void>> {
  // 'default' is the offline embedder: the e2e index never depends on keys in the environment.
  const index = (out: string, embed: false | 'default') =>
    buildIndex({ root: E2E_DOCS, mode: 'source', out, config: validateConfig({ embed }, '(e2e)'), docpilotVersion: 'e2e' })
  await Promise.all([buildWidget(E2E_WIDGET), index(E2E_INDEX, 'default'), index(E2E_LEXICAL_INDEX, false)])
  return () => rm(E2E_RUN_DIR, { recursive: true, force: true })
}
