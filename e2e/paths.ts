/** Where the e2e run keeps what global setup builds (git-ignored). */
import { fileURLToPath } from 'node:url'

const at = (p: string) => fileURLToPath(new URL(p, import.meta.url))

export const ROOT = at('../')
/** The fixture docs the demo site serves and the index covers. */
export const E2E_DOCS = process.env.DOCPILOT_E2E_DOCS ?? at('../fixtures/site/')
export const E2E_INDEX = at('../.docpilot/e2e-index/')
/** The same docs indexed with `embed: false`: a site that declared lexical-only. */
export const E2E_LEXICAL_INDEX = at('../.docpilot/e2e-index-lexical/')
export const E2E_WIDGET = at('../dist/widget/')

/** A question the fixture docs answer, and one they do not cover at all. */
export const COVERED = process.env.DOCPILOT_E2E_COVERED ?? 'How do I set and get values on the context?'
export const UNCOVERED = 'zebra migration patterns across the savanna'
