/**
 * The one way to read an index's manifest.json: parse it, check every field
 * against the Manifest type, and only then hand it out. Every reader (the
 * browser's worker, the CLI, the MCP server, dev and preview) goes through
 * here, so no reader trusts a field the index did not actually carry, and a
 * damaged or foreign manifest fails once, naming the field and the fix.
 */
import { FORMAT_VERSION, isShardSet, LEXICAL_FIELDS, MANIFEST_FILE, type Manifest } from './format.ts'
import { isMemberId } from '../providers/table.ts'
import type { PartLoader } from './parts.ts'

/** The index folder cannot be used by this version of docpilot (or is not an index at all). */
export class IndexFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'IndexFormatError'
  }
}

const REBUILD = 'Rebuild the index with `docpilot index`.'

function shown(value: unknown): string {
  if (value === undefined) return 'missing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${JSON.stringify(value)}`
}

/** A field that is not what the format says: named with its path, what it is, what it must be, and the fix. */
function wrong(path: string, want: string, got: unknown): never {
  throw new IndexFormatError(`${MANIFEST_FILE}: ${path} is ${shown(got)}; it must be ${want}. ${REBUILD}`)
}

type Check = (value: unknown, path: string) => void

/** The path of a field inside the manifest, e.g. `retrieval.gate.threshold`. */
const at = (path: string, key: string) => (path ? `${path}.${key}` : key)

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

const string: Check = (v, path) => typeof v === 'string' || wrong(path, 'a string', v)
const number: Check = (v, path) => (typeof v === 'number' && Number.isFinite(v)) || wrong(path, 'a number', v)
const count: Check = (v, path) => (Number.isInteger(v) && (v as number) >= 0) || wrong(path, 'a whole number', v)
const boolean: Check = (v, path) => typeof v === 'boolean' || wrong(path, 'true or false', v)
const oneOf =
  (...values: readonly unknown[]): Check =>
  (v, path) =>
    values.includes(v) || wrong(path, values.map((x) => JSON.stringify(x)).join(' or '), v)
const listOf =
  (item: Check): Check =>
  (v, path) => {
    if (!Array.isArray(v)) wrong(path, 'a list', v)
    v.forEach((x, i) => item(x, `${path}[${i}]`))
  }
const recordOf =
  (item: Check): Check =>
  (v, path) => {
    if (!isObject(v)) wrong(path, 'an object', v)
    for (const [key, x] of Object.entries(v)) item(x, at(path, key))
  }
const optional =
  (check: Check): Check =>
  (v, path) =>
    v === undefined || check(v, path)
/** An object with these fields (others are left alone: a newer writer may add some). */
const fields =
  (shape: Record<string, Check>): Check =>
  (v, path) => {
    if (!isObject(v)) wrong(path, 'an object', v)
    for (const [key, check] of Object.entries(shape)) check(v[key], at(path, key))
  }
const memberId: Check = (v, path) => isMemberId(v as string) || wrong(path, 'a provider docpilot knows', v)

const corpus = fields({ digest: string, files: count, chunks: count })

const embedder = fields({
  id: string,
  kind: oneOf('local', 'hosted', 'none'),
  model: string,
  dims: count,
  quantization: string,
  provider: optional(memberId),
  files: optional(recordOf(string)),
  rows: optional(
    fields({
      pack: string,
      directory: string,
      buckets: count,
      hash: oneOf('fnv1a32'),
      tokenizer: fields({ lowercase: oneOf(true), pattern: string }),
    }),
  ),
})

const part: Check = (v, path) => typeof v === 'string' || isShardSet(v) || wrong(path, 'a file name or a shard set', v)
const shardSet =
  (extra: Record<string, Check>): Check =>
  (v, path) => {
    if (!isShardSet(v)) wrong(path, 'a shard set', v)
    fields({ count, ...extra })(v, path)
  }
const parts: Check = (v, path) => {
  recordOf(part)(v, path)
  fields({
    lexical: string,
    postings: shardSet({ firsts: optional(listOf(string)) }),
    texts: shardSet({ per: (n, p) => ((Number.isInteger(n) && (n as number) > 0) || wrong(p, 'a whole number above 0', n)) }),
    codes: optional(string),
    vectors: optional(string),
    ranks: optional(string),
  })(v, path)
}

const lexical = fields({
  tokenizer: string,
  stemming: oneOf('porter', 'none'),
  fields: listOf(oneOf(...LEXICAL_FIELDS)),
  boost: fields(Object.fromEntries(LEXICAL_FIELDS.map((f) => [f, number]))),
  stopWords: listOf(string),
  prefixMinLength: number,
  fuzzyMinLength: number,
  fuzzy: number,
  maxFuzzy: number,
  weights: fields({ prefix: number, fuzzy: number }),
  bm25: fields({ k: number, b: number, d: number }),
})

/** A lexical-only index carries no fusion: `{}`. */
const fusion: Check = (v, path) => {
  if (isObject(v) && Object.keys(v).length === 0) return
  fields({ method: oneOf('linear', 'rrf'), lexicalWeight: number, denseWeight: number, coverageWeight: optional(number) })(v, path)
  if ((v as { method: string }).method === 'rrf') number((v as { k?: unknown }).k, at(path, 'k'))
}

const gate = fields({
  vocabularyFloor: number,
  // Indexes written before the subject check have none.
  subjectFloor: optional(number),
  threshold: number,
  weights: fields({ cooccurrence: number, meaning: number }),
  lexicalThreshold: number,
  meaningFrom: oneOf('lexical', 'results'),
})

const retrieval = fields({
  fusion,
  gate,
  ranks: optional(fields({ words: count, source: optional(oneOf('list', 'model')) })),
})

const chat = fields({
  chain: listOf(
    fields({
      provider: memberId,
      models: listOf(string),
      tier: oneOf('billed', 'free', 'own'),
      route: string,
      freePool: boolean,
    }),
  ),
  rationing: optional(fields({ enabled: boolean, dailyLimit: optional(number), note: optional(string) })),
  settings: optional(fields({ maxTokens: number, temperature: number, timeouts: fields({ firstByteMs: number, idleMs: number }) })),
})

const manifestFields: (value: unknown, path: string) => asserts value is Manifest = fields({
  docpilot: string,
  createdAt: string,
  corpus,
  embedder,
  parts,
  lexical,
  retrieval,
  chat,
  panel: optional(fields({ suggestions: listOf(string) })),
  insights: optional(fields({ questions: boolean })),
})

/**
 * Checks a parsed manifest.json against the format: the version first (an
 * index of another version is refused as such, whatever its fields), then
 * every field. Returns the value itself, so a reader that passes the
 * manifest on passes it on unchanged.
 */
export function checkManifest(value: unknown): Manifest {
  if (!isObject(value) || !('format' in value)) {
    throw new IndexFormatError(`${MANIFEST_FILE} is not a docpilot index manifest. Run \`docpilot index\` to build one.`)
  }
  if (value.format !== FORMAT_VERSION) {
    const writer = typeof value.docpilot === 'string' ? value.docpilot : 'unknown'
    throw new IndexFormatError(
      `This index has format version ${String(value.format)} (written by docpilot ${writer}); ` +
        `this docpilot reads format version ${FORMAT_VERSION}. Rebuild it with \`docpilot index\`.`,
    )
  }
  manifestFields(value, '')
  return value
}

/** A manifest from its JSON text or bytes. */
export function parseManifest(json: string | Uint8Array): Manifest {
  let value: unknown
  try {
    value = JSON.parse(typeof json === 'string' ? json : new TextDecoder().decode(json))
  } catch (err) {
    throw new IndexFormatError(`${MANIFEST_FILE} is not valid JSON (${err instanceof Error ? err.message : String(err)}). ${REBUILD}`)
  }
  return checkManifest(value)
}

/** The manifest of the index a loader reads. */
export async function readManifest(loader: Pick<PartLoader, 'bytes'>): Promise<Manifest> {
  return parseManifest(await loader.bytes(MANIFEST_FILE))
}
