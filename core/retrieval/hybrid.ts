/**
 * The dense half of a search and the step that joins it to the lexical half:
 * embed the question with the index's one embedder (retried once, bounded in
 * time), score the best lexical candidates exactly and scan every passage's
 * vector code for the dense candidates, fuse, and gate.
 *
 * Modes:
 * - hybrid: both channels.
 * - lexical, not degraded: the site declared lexical-only (embed: false) or
 *   the caller asked for it. Nothing is logged.
 * - lexical, degraded: the embedder failed twice for this question; the reason
 *   goes to the log and into the result. The next question tries again.
 * There is never a second embedder.
 */
import { untilAborted } from '../abort.ts'
import { openEmbedder, embedderRuntime, type OpenEmbedderDeps } from '../embed/open.ts'
import { EmbedError, type Embedder } from '../embed/types.ts'
import type { Manifest } from '../index/format.ts'
import type { DenseHit } from './dense.ts'
import { openExactRows, openPassageVectors, type ExactRows, type PassageVectors } from './passage-vectors.ts'
import { decodeVectorCodes } from '../index/vectors.ts'
import { withContextVector } from './conversation.ts'
import { fuse, type FusionConfig } from './fusion.ts'
import { gate, GATE_DEPTH, meaningSignal, type GateConfig, type GateSignals, type GateVerdict } from './gate.ts'
import type { PartLoader } from '../index/parts.ts'
import { tuningFor } from './tuning.ts'

export interface DenseOptions extends Partial<Pick<OpenEmbedderDeps, 'transport'>> {
  /** Per-attempt limit on embedding a question (default 5 s); one retry follows a failure. */
  embedTimeoutMs?: number
  /** Per-attempt limit on loading the embedder (model files, runtime), default 30 s. */
  loadTimeoutMs?: number
  /** Where the degradation reason goes (default console.warn). */
  log?: (message: string) => void
  /** Use this embedder instead of building one from the manifest (a worker that already holds it). */
  embedder?: Embedder
}

/** How many candidates each channel contributes to fusion. */
export const FUSION_CANDIDATES = 50

/**
 * How many of the best lexical candidates (the gate's passages among them)
 * get their exact dense score, from int8 rows read while the question is
 * embedded, and how many of the best candidates by code (read once the codes
 * are scanned); other candidates keep the score of their code, whose error
 * decides rankings once dense carries most of the fused score. Chosen on the
 * four dev sets: with 32 and 16, every figure `docpilot eval` reports with
 * all-MiniLM-L6-v2 equals that of exact scores for every chunk; with 16 and
 * none, hono-dev-2 R@8 fell .98 -> .92 and astro-dev-2 .94 -> .88.
 */
export const RESCORE_DEPTH = 32
export const DENSE_RESCORE_DEPTH = 16

export interface DenseChannel {
  /** The question's vector, or why there is none this time. */
  queryVector(question: string, signal?: AbortSignal): Promise<{ vector: Float32Array } | { reason: string }>
  /** The index's passage vectors: codes fetched once (a failed fetch rejects and is read again by the next call), exact rows on demand. */
  vectors(): Promise<PassageVectors>
  /** The exact rows alone, readable before the codes have arrived. */
  readonly rows: ExactRows
  /** Where degradation reasons go (DenseOptions.log). */
  log(reason: string): void
  /** Word ranks from the embedder's own vocabulary (Embedder.ranksOf); rejects when it has none or cannot load. */
  ranksOf(words: readonly string[], ranked: number): Promise<Array<number | undefined>>
  /**
   * Starts loading the embedder and the vectors ahead of the first question
   * (the panel calls it when it opens). Failures are not reported here: the
   * question that needs them retries and reports.
   */
  warm(): Promise<void>
}

/** null when the index declared lexical-only. Throws for an embedder this docpilot does not know. */
export function openDenseChannel(manifest: Manifest, loader: PartLoader, opts: DenseOptions = {}): DenseChannel | null {
  if (embedderRuntime(manifest.embedder) === 'none') return null
  const identity = manifest.embedder
  const codesPart = manifest.parts.codes
  const rowsPart = manifest.parts.vectors
  if (typeof codesPart !== 'string' || typeof rowsPart !== 'string') {
    throw new EmbedError(`manifest.json names embedder "${identity.id}" but no "vectors" and "codes" parts. Rebuild the index with \`docpilot index\`.`, 'bad_model')
  }
  const timeoutMs = opts.embedTimeoutMs ?? 5000
  const loadTimeoutMs = opts.loadTimeoutMs ?? 30_000
  const log = opts.log ?? ((m: string) => console.warn(`[docpilot] ${m}`))
  let embedder: Promise<Embedder> | null = opts.embedder ? Promise.resolve(opts.embedder) : null
  let vectors: Promise<PassageVectors> | null = null
  const rows = openExactRows(rowsPart, identity.dims, loader)

  const getEmbedder = () => {
    if (!embedder) {
      embedder = openEmbedder(identity, { loader, transport: opts.transport }).then((e) => e!)
      // A failed load is not remembered: the next question tries again.
      embedder.catch(() => (embedder = null))
    }
    return embedder
  }

  /** Rejects with a timeout EmbedError (aborting `ctrl`) when `work` takes longer than `ms`. */
  async function within<T>(work: Promise<T>, ms: number, what: string, ctrl: AbortController): Promise<T> {
    const timer = setTimeout(() => ctrl.abort(new EmbedError(`${what} took longer than ${ms} ms`, 'timeout')), ms)
    try {
      return await untilAborted(work, ctrl.signal)
    } finally {
      clearTimeout(timer)
    }
  }

  async function attempt(question: string, outer?: AbortSignal): Promise<Float32Array> {
    const ctrl = new AbortController()
    const onAbort = () => ctrl.abort(outer?.reason)
    outer?.addEventListener('abort', onAbort)
    try {
      // Loading (a first visit downloads and compiles the model) has its own, longer limit than
      // embedding one question, so a slow first load is not mistaken for a broken embedder.
      const embedder = await within(getEmbedder(), loadTimeoutMs, 'loading the embedder', ctrl)
      const [v] = await within(embedder.embed([question], { purpose: 'query', signal: ctrl.signal }), timeoutMs, 'embedding the question', ctrl)
      if (!v || v.length !== identity.dims) throw new EmbedError(`the embedder returned ${v?.length ?? 0} dims; the index has ${identity.dims}`, 'bad_response')
      return v
    } finally {
      outer?.removeEventListener('abort', onAbort)
    }
  }

  /** The question's vector: two attempts (one when the first was refused as too many), then why there is none (logged). */
  async function embedQuestion(question: string, signal?: AbortSignal): Promise<{ vector: Float32Array } | { reason: string }> {
    let last: unknown
    for (let i = 0; i < 2; i++) {
      if (signal?.aborted) break
      try {
        return { vector: await attempt(question, signal) }
      } catch (err) {
        last = err
        // Behind the proxy a second try would also spend another of this reader's requests, which the answer needs.
        if (err instanceof EmbedError && err.code === 'rate_limited') break
      }
    }
    const reason = `embedder "${identity.id}" unavailable, searching lexical-only: ${message(last)}`
    log(reason)
    return { reason }
  }
  // The latest question's embedding, settled or not (ranksOf waits for it).
  let latest: Promise<{ vector: Float32Array } | { reason: string }> = Promise.resolve({ vector: new Float32Array(0) })

  const channel: DenseChannel = {
    async warm() {
      await Promise.all([getEmbedder().then((e) => e.warm?.()), channel.vectors()]).catch(() => {})
    },
    queryVector(question, signal) {
      latest = embedQuestion(question, signal)
      return latest
    },
    log,
    rows,
    async ranksOf(words, ranked) {
      // After the latest question's embedding: its rows are then read, so the ranks cost no read of their own,
      // and an embedder that just failed is not asked again.
      if ('reason' in (await latest)) throw new EmbedError('the embedder is unavailable; no word ranks', 'unreachable')
      // Bounded like a question's embedding: the search waits for the ranks, and never forever.
      const ctrl = new AbortController()
      const e = await within(getEmbedder(), loadTimeoutMs, 'loading the embedder', ctrl)
      if (!e.ranksOf) throw new EmbedError(`embedder "${identity.id}" has no word ranks`, 'bad_model')
      return within(e.ranksOf(words, ranked), timeoutMs, 'reading word ranks', ctrl)
    },
    vectors() {
      // Not retried here: the loader is the one place a read is retried (core/index/fetch-part.ts), and a second
      // round on top of it would double the wait of a stalled read. A failed read is forgotten, so the
      // next question reads again.
      if (!vectors) {
        vectors = loader.bytes(codesPart).then((b) =>
          openPassageVectors(decodeVectorCodes(b, manifest.corpus.chunks, identity.dims, `index vectors file ${codesPart}`), rows),
        )
        vectors.catch(() => (vectors = null))
      }
      return vectors
    },
  }
  return channel
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

export interface RankInput {
  question: string
  k: number
  /** Lexical hits, best first (ordinal = chunk position). At least FUSION_CANDIDATES when available. */
  lexical: { ordinal: number; score: number; coverage: number }[]
  /** The gate's signals that need no vectors (vocabulary, cooccurrence); meaning is added here. */
  evidence: Omit<GateSignals, 'meaning'>
  dense: DenseChannel | null
  manifest: Manifest
  lexicalOnly?: boolean
  queryVector?: Float32Array
  signal?: AbortSignal
  /**
   * The section a chunk belongs to (windows of one long section share it). Results keep the best
   * chunk of each section only, so no surface shows the same heading twice. Absent: every chunk is its own.
   */
  sectionOf?: (ordinal: number) => string
  /** The conversation's earlier questions as one text: the question's vector leans towards it (conversation.ts). */
  context?: string
}

export interface Ranked {
  mode: 'hybrid' | 'lexical'
  degraded: boolean
  degradedReason?: string
  gate: GateVerdict
  hits: { ordinal: number; score: number; channels: { lexical?: number; dense?: number } }[]
}

/** The manifest's gate settings, as written (every field was checked when it was read: core/index/read-manifest.ts). */
export function gateConfig(manifest: Manifest): GateConfig {
  return manifest.retrieval.gate
}

/** The manifest's fusion; a lexical-only index has none (`{}`) and gets its embedder's tuning. */
export function fusionConfig(manifest: Manifest): FusionConfig {
  const f = manifest.retrieval.fusion
  return f.method === undefined ? tuningFor(manifest.embedder).fusion : f
}

/** The first `k` hits, best first, skipping a hit whose section an earlier hit already holds. */
export function onePerSection<T extends { ordinal: number }>(hits: readonly T[], k: number, sectionOf?: (ordinal: number) => string): T[] {
  if (!sectionOf) return hits.slice(0, k)
  const seen = new Set<string>()
  const out: T[] = []
  for (const h of hits) {
    if (out.length === k) break
    const section = sectionOf(h.ordinal)
    if (seen.has(section)) continue
    seen.add(section)
    out.push(h)
  }
  return out
}

function lexicalOnlyRank(input: RankInput, degradedReason?: string): Ranked {
  return {
    mode: 'lexical',
    degraded: degradedReason !== undefined,
    ...(degradedReason !== undefined ? { degradedReason } : {}),
    gate: gate(input.evidence, gateConfig(input.manifest)),
    hits: onePerSection(input.lexical, input.k, input.sectionOf).map((h) => ({ ordinal: h.ordinal, score: h.score, channels: { lexical: h.score } })),
  }
}

export async function rankHybrid(input: RankInput): Promise<Ranked> {
  if (!input.dense || input.lexicalOnly) return lexicalOnlyRank(input)
  // The best lexical candidates (the gate's among them) are scored exactly: their rows are read now, while the question is embedded.
  const exactSet = input.lexical.slice(0, Math.max(RESCORE_DEPTH, 2 * input.k, GATE_DEPTH)).map((h) => h.ordinal)
  input.dense.rows.prefetch(exactSet)
  let vector = input.queryVector
  if (!vector) {
    const q = await input.dense.queryVector(input.question, input.signal)
    if ('reason' in q) return lexicalOnlyRank(input, q.reason)
    vector = q.vector
  }
  let vectors: PassageVectors
  let exact: Map<number, number>
  let denseHits: DenseHit[]
  try {
    vectors = await input.dense.vectors()
    if (input.context) {
      // Without the context's vector the question is still searched on its own words.
      const c = await input.dense.queryVector(input.context, input.signal)
      if ('vector' in c) vector = withContextVector(vector, c.vector)
    }
    // Candidates the words missed come from every chunk's code; the best of them are scored exactly too.
    denseHits = vectors.scan(vector, FUSION_CANDIDATES)
    const lexicalSet = new Set(exactSet)
    const denseBest = denseHits.slice(0, DENSE_RESCORE_DEPTH).map((h) => h.index).filter((o) => !lexicalSet.has(o))
    exact = await vectors.exact(vector, [...exactSet, ...denseBest])
  } catch (err) {
    const reason = `index vectors unavailable, searching lexical-only: ${message(err)}`
    input.dense.log(reason)
    return lexicalOnlyRank(input, reason)
  }
  const v = vector
  const approximate = vectors.approximate(v)
  const denseOf = (o: number) => exact.get(o) ?? approximate(o)
  const fused = fuse(
    input.lexical.slice(0, FUSION_CANDIDATES).map((h) => ({ id: String(h.ordinal), score: h.score, coverage: h.coverage })),
    denseHits.map((h) => ({ id: String(h.index), score: denseOf(h.index) })).sort((a, b) => b.score - a.score),
    fusionConfig(input.manifest),
    (id) => denseOf(Number(id)),
    input.sectionOf && ((id) => input.sectionOf!(Number(id))),
  )
  const hits = onePerSection(
    fused.map((f) => ({ ordinal: Number(f.id), score: f.score, channels: f.channels })),
    input.k,
    input.sectionOf,
  )
  const config = gateConfig(input.manifest)
  const read = (config.meaningFrom === 'results' ? hits : input.lexical)[0]
  // The meaning signal reads an exact cosine: a dense-only top result has only its code's estimate so far.
  if (read && !exact.has(read.ordinal)) {
    const more = await vectors.exact(v, [read.ordinal]).catch(() => new Map<number, number>())
    for (const [o, score] of more) exact.set(o, score)
  }
  const meaning = meaningSignal(read ? [read] : [], denseOf)
  return { mode: 'hybrid', degraded: false, gate: gate({ ...input.evidence, meaning }, config), hits }
}
