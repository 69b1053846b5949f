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
  slowDownNotice,
} from '../../core/turn/copy.ts'

/** How long a copy button says it copied. */
export const COPIED_MS = 1500

export const COPY = {
  title: 'Ask the docs',
  placeholder: 'Ask a question about the docs…',
  length: (n: number, max: number) => `${n.toLocaleString('en')} / ${max.toLocaleString('en')} characters`,
  tooLong: (n: number, max: number) => `${n.toLocaleString('en')} / ${max.toLocaleString('en')} characters: shorten the question to ask it.`,
  ask: 'Ask',
  stop: 'Stop',
  close: 'Close',
  retry: RETRY_LABEL,
  searchDocs: SEARCH_DOCS_LABEL,
  searching: 'Searching the docs…',
  /** Retrieval is done and a model is being asked: the wait from here on is the model's. */
  asking: 'Asking the model…',
  seconds: (s: number) => `${s} s`,
  sources: 'Sources',
  /** A citation link's accessible name: its visible "[n]" alone says nothing to a screen reader. */
  citation: (n: number, section: string) => `Source ${n}: ${section}`,
  passagesFound: (n: number) => (n === 1 ? '1 passage found' : `${n} passages found`),
  alsoSearched: (n: number) => `Also searched (${n})`,
  empty: 'Answers come from these docs, with links to the sections they cite.',
  emptySearch: 'Results come from these docs, grouped by page.',
  suggestions: 'Try asking',
  newConversation: 'New conversation',
  conversation: 'Conversation',
  copy: 'Copy',
  copied: 'Copied',
  copyCode: 'Copy code',
  copyAnswer: 'Copy answer',
  copiedStatus: 'Copied to the clipboard',
  copyFailed: "Couldn't copy: the browser did not allow it",
  singleKeyTip: (key: string) => `Press ${key} anywhere on the page to open this panel.`,
  singleKeyOffTip: 'Single-key shortcuts are off.',
  singleKeyOff: 'Turn off',
  singleKeyOn: 'Turn on',
  answerReady: 'Answer ready',
  hybrid: HYBRID_NOTICE,
  /** A failure before retrieval: the transport error of the spec, in its words. */
  error: ERROR_NOTICE,
  /**
   * What it was, under those words: in the browser, retrieval runs over the static index alone, so a failure
   * before retrieval is the index's (unreachable, refused, damaged), and there are no passages to show.
   */
  indexCause: "The docs' search index couldn't be loaded, so there are no passages to show.",
  meanwhile: MEANWHILE_NOTICE,
  /** `stoppedBy` is the receipt's: the proxy's per-client limit gets its own words (a wait of seconds, no service at fault). */
  rateLimited: (resetAt: number | undefined, stoppedBy?: string) =>
    stoppedBy === 'client_rate_limited'
      ? slowDownNotice(resetAt)
      : rateLimitedNotice(resetAt, (t) => new Date(t).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' })),
  refused: "The docs don't seem to cover this. The closest passages:",
  degraded:
    'Search is degraded right now (the embedding model could not be reached, so only keyword search ran): the docs may cover this under other words.',
  partial: CUT_OFF_NOTICE,
  aborted: 'Stopped.',
  demo: 'Demo',
  searchResults: (passages: number, pages: number) =>
    `${passages === 1 ? '1 result' : `${passages} results`} on ${pages === 1 ? '1 page' : `${pages} pages`}`,
  nearest: "Nothing in the docs matches closely. The nearest passages:",
  noResults: 'No passages matched.',
  searchError: "Search isn't available right now: the index could not be loaded.",
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  thanks: 'Thanks for the feedback.',
  feedbackFailed: "Feedback couldn't be sent.",
  debugTitle: 'Debug: turn receipt',
} as const
