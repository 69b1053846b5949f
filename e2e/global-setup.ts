/**
 * Builds what every spec serves, once: the widget (dist/widget/) and the
 * index of the fixture site. Specs start their own dev server over them.
 */
import { rm } from 'node:fs/promises'
import { validateConfig } from '../core/config/validate.ts'
import { buildIndex } from '../indexer/build.ts'
import { buildWidget } from '../widget/vite.config.ts'
import { E2E_DOCS, E2E_INDEX, E2E_WIDGET } from './paths.ts'

export default async function globalSetup(): Promise<void> {
  await rm(E2E_INDEX, { recursive: true, force: true })
  await Promise.all([
    buildWidget(E2E_WIDGET),
    buildIndex({ root: E2E_DOCS, mode: 'source', out: E2E_INDEX, config: validateConfig({}, '(e2e)'), docpilotVersion: 'e2e' }),
  ])
}
