/**
 * Panel copy. The sentences spec 002 quotes are owned by the core turn
 * (core/turn) and re-exported here; the rest is the panel's own wording.
 */
import {
  CUT_OFF_NOTICE,
  ERROR_NOTICE,
  HYBRID_NOTICE,
  MEANWHILE_NOTICE,
  RETRY_LABEL,
  SEARCH_DOCS_LABEL,
  rateLimitedNotice,
} from '../../core/turn/copy.ts'

export const COPY = {
  title: 'Ask the docs',
  placeholder: 'Ask a question about the docs…',
  ask: 'Ask',
  stop: 'Stop',
  close: 'Close',
  retry: RETRY_LABEL,
  searchDocs: SEARCH_DOCS_LABEL,
  searching: 'Searching the docs…',
  answering: 'Writing an answer…',
  sources: 'Sources',
  empty: 'Answers come from these docs, with links to the sections they cite.',
  hybrid: HYBRID_NOTICE,
  error: ERROR_NOTICE,
  meanwhile: MEANWHILE_NOTICE,
  rateLimited: (resetAt: number | undefined) =>
    rateLimitedNotice(resetAt, (t) => new Date(t).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' })),
  refused: "The docs don't seem to cover this. The closest passages:",
  degraded:
    'Search is degraded right now (the embedding model could not be reached, so only keyword search ran): the docs may cover this under other words.',
  partial: CUT_OFF_NOTICE,
  aborted: 'Stopped.',
  searchResults: 'Passages that match your question:',
  noResults: 'No passages matched.',
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  thanks: 'Thanks for the feedback.',
  feedbackFailed: "Feedback couldn't be sent.",
  debugTitle: 'Debug: turn receipt',
} as const
