/**
 * Where the e2e run keeps what global setup builds. Several people run the
 * suite at once on one checkout, so each run builds into its own temporary
 * folder: the first import (in the runner process) names it and puts the name
 * in the environment, the test workers the runner starts inherit it, and the
 * builders in global setup create it. Importing this file writes nothing.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const at = (p: string) => fileURLToPath(new URL(p, import.meta.url))

export const ROOT = at('../')
/** This run's folder (removed by global setup's teardown). */
export const E2E_RUN_DIR = (process.env.DOCPILOT_E2E_RUN_DIR ??= join(tmpdir(), `docpilot-e2e-${process.pid}-${Date.now().toString(36)}`))
/** The fixture docs the demo site serves and the index covers. */
export const E2E_DOCS = process.env.DOCPILOT_E2E_DOCS ?? at('../fixtures/site/')
export const E2E_INDEX = join(E2E_RUN_DIR, 'index/')
/** The same docs indexed with `embed: false`: a site that declared lexical-only. */
export const E2E_LEXICAL_INDEX = join(E2E_RUN_DIR, 'index-lexical/')
export const E2E_WIDGET = join(E2E_RUN_DIR, 'widget/')

/** A question the fixture docs answer, and one they do not cover at all. */
export const COVERED = process.env.DOCPILOT_E2E_COVERED ?? 'How do I set and get values on the context?'
export const UNCOVERED = 'zebra migration patterns across the savanna'
/** A question guide/security.md answers, in a reader's words; its passages carry attack strings. */
export const HOSTILE = 'How do I stop script injection when rendering untrusted user input?'
