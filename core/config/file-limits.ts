/**
 * The defaults of the per-file limits of `docpilot index` (docs.maxFileBytes,
 * docs.maxNesting, docs.parseTimeoutMs; schema.ts says why each is what it
 * is), apart from the schema so the indexer reads them without loading zod.
 */
export const DEFAULT_FILE_LIMITS = { maxFileBytes: 2 * 1024 * 1024, maxNesting: 64, parseTimeoutMs: 120_000 } as const
