/**
 * The passage vectors' codes (core/index/vectors.ts) kept between index runs,
 * so that a re-index redoes only what its changed chunks change. Coding every
 * vector afresh costs a one-page re-index of astro (4,064 chunks) about 20 ms
 * of CPU, mostly interpreted: the sums over the sample that pick the
 * dimensions and the scale, then every chunk's bits.
 *
 * The memo holds what the last run's codes were made of, and the codes
 * themselves. A run takes the picked dimensions and scale from it when the
 * sample is the same chunks as then (the digests at the sample's positions,
 * with the counts that decide them), copies the code of every chunk the memo
 * has (by embedding digest: the same text embedded by the same embedder is
 * the same vector), and codes the rest. When the sample changed, the picked
 * dimensions are measured again: copied codes then have the bits of the code
 * positions whose dimension changed set again (a pair of close dimensions
 * swapped, typically), unless most did (the sample shifted: every chunk is
 * coded). A chunk embedded this run counts as new whatever the memo holds
 * for its digest: the memo was made from the vector the embedding cache held
 * then, and a hosted embedder need not give the same vector twice.
 *
 * One binary file per embedder and index, next to the embedding cache's (the
 * same name, the same identity in the header): u32 magic, u32 identity bytes,
 * the identity (embedderText, with the codes' format) padded to 4 bytes, the
 * 32-byte sample key, u32 chunks, each chunk's 32-byte embedding digest, the
 * codes file as the index holds it, then the sha256 of all that (a bit
 * flipped in a copied code would be a wrong index, not a slower run; astro's
 * 200 KB hash in well under a millisecond). Little-endian. Rewritten whole
 * when a run's codes or digests differ; a damaged or foreign file is a miss.
 */
import { readFile } from 'node:fs/promises'
import { blankCodes, codeBitsAt, codeBytes, codeDims, codeSample, codeStats, decodeVectorCodes, encodeVectorCodes, writeSigns, type CodeStats, type VectorCodes } from '../core/index/vectors.ts'
import { replaceFile } from './cache-file.ts'
import { DIGEST_BYTES, embedderCacheFile, embedderText, pad4, type CachedEmbedder } from './embed-cache.ts'
import { sha256 } from './sha256.ts'

/** "DPC1", little-endian. */
const MAGIC = 0x31435044

/**
 * The memo's layout, and the codes of fixed vectors: a change to how codes are made (which dimensions win, how
 * ties and zeros count) changes the probe's, and a memo made before is not read. The probe has zeros and two
 * dimensions of equal variance because those are where such changes show; what it cannot see, bump the version for.
 */
const CODES_FORMAT = (() => {
  const probe = Array.from({ length: 6 }, (_, i) =>
    Float32Array.from({ length: 8 }, (_, d) => (d === 0 ? 0 : d === 1 || d === 2 ? (i % 2 ? 0.5 : -0.5) : Math.sin((i + 1) * (d + 2)))),
  )
  return `codes 1 ${Buffer.from(encodeVectorCodes(probe, 8, 4)).toString('hex')}`
})()

export interface CodesInput {
  cacheDir: string
  /** The index the codes are for (its output folder). */
  scope: string
  /** The embedder as the embedding cache knows it (its model's content too): another's codes are not reused. */
  embedder: CachedEmbedder
  vectors: readonly Float32Array[]
  dims: number
  /** Each chunk's embedding digest (embedDigest), in chunk order. */
  digests: readonly string[]
  /** The chunks (by position) whose vectors this run embedded rather than read from the embedding cache. */
  embedded: readonly number[]
}

export interface MemoizedCodes {
  /** Byte for byte what encodeVectorCodes gives for the same vectors. */
  codes: Uint8Array
  /** Whether the sample was measured (false: its picked dimensions and scale came from the memo). */
  measured: boolean
  /** Chunks whose codes were set from their vectors whole (the others' were copied from the memo). */
  coded: number
  /** Code positions set again from the vectors in every copied code: those whose dimension changed. */
  recodedPositions: number
}

interface Memo {
  sampleKey: string
  codes: VectorCodes
  /** Each of its chunks' embedding digest, one after another (32 bytes each). */
  digests: Buffer
}

/** The codes of these vectors, reusing the last run's for what did not change (see above), and kept for the next run. */
export async function memoizedVectorCodes(input: CodesInput): Promise<MemoizedCodes> {
  const { vectors, dims, digests } = input
  const n = vectors.length
  const m = codeDims(n, dims)
  const file = embedderCacheFile(input.cacheDir, 'codes', input.embedder, input.scope)
  const header = headerBytes(input.embedder)
  const read = await readFile(file).catch(() => null)
  const memo = read ? readMemo(read, header, dims) : undefined
  const embedded = new Set(input.embedded)

  const sample = codeSample(n)
  const sampleKey = sha256(`${n} ${dims} ${m}\n${sample.map((i) => digests[i]).join('\n')}`)
  const sampleKept = memo?.sampleKey === sampleKey && !sample.some((i) => embedded.has(i))
  const stats: CodeStats = sampleKept ? { picked: memo.codes.picked, scale: memo.codes.scale } : codeStats(vectors, dims, m)
  const codes = blankCodes(n, dims, stats)
  // A code's bit j is the sign of its vector's picked dimension j: a copied code's bits are right where the
  // memo picked the same dimension, and set again where it did not. A sample that changed a little (one chunk
  // edited) swaps a pair of close dimensions or two; one that shifted (chunks added or removed) reorders most,
  // and copying then saves nothing.
  const stale = memo && memo.codes.picked.length === m ? changedPositions(memo.codes.picked, stats.picked) : undefined
  const copy = memo && stale && stale.length <= m / 2
  let coded: number
  if (copy) {
    const chunkOf = memoChunks(memo.digests)
    coded = setBits(codes, vectors, stats.picked, {
      bits: memo.codes.bits,
      chunkOf: (i) => (embedded.has(i) ? undefined : chunkOf.get(digests[i]!)),
    })
    for (const j of stale) recodePosition(codes, vectors, stats.picked, j)
  } else coded = setBits(codes, vectors, stats.picked)

  const next = memoBytes(header, sampleKey, digests, codes)
  if (!read?.equals(next)) await replaceFile(file, next)
  return { codes, measured: !sampleKept, coded, recodedPositions: copy ? stale.length : 0 }
}

/**
 * Sets every chunk's bits in `codes` (blank): copied from `memo` where it has the chunk, the codes of
 * chunks that follow each other there copied as one range, else from the chunk's vector. How many were
 * set from vectors.
 */
function setBits(
  codes: Uint8Array,
  vectors: readonly Float32Array[],
  picked: Uint16Array,
  memo?: { bits: Uint8Array; chunkOf: (i: number) => number | undefined },
): number {
  const size = codeBytes(picked.length)
  const start = codeBitsAt(picked.length)
  let coded = 0
  // The memo's codes not copied yet: `count` chunks from its chunk `from`, to go at chunk `into`.
  let from = 0
  let count = 0
  let into = 0
  const copy = () => {
    if (memo && count) codes.set(memo.bits.subarray(from * size, (from + count) * size), start + into * size)
    count = 0
  }
  for (let i = 0; i < vectors.length; i++) {
    const j = memo?.chunkOf(i)
    if (j !== undefined && count && j === from + count) {
      count++
      continue
    }
    copy()
    if (j !== undefined) [from, count, into] = [j, 1, i]
    else {
      writeSigns(vectors[i]!, picked, codes, start + i * size)
      coded++
    }
  }
  copy()
  return coded
}

/** The code positions whose dimension differs between two picks of one length. */
function changedPositions(before: Uint16Array, now: Uint16Array): number[] {
  const changed: number[] = []
  for (let j = 0; j < now.length; j++) if (before[j] !== now[j]) changed.push(j)
  return changed
}

/** Sets bit j of every chunk's code afresh from its vector. */
function recodePosition(codes: Uint8Array, vectors: readonly Float32Array[], picked: Uint16Array, j: number): void {
  const size = codeBytes(picked.length)
  const d = picked[j]!
  const bit = 1 << (j & 7)
  for (let i = 0, at = codeBitsAt(picked.length) + (j >> 3); i < vectors.length; i++, at += size) {
    if (vectors[i]![d]! >= 0) codes[at]! |= bit
    else codes[at]! &= ~bit
  }
}

/** Where each digest's code is in the memo's codes (by chunk). */
function memoChunks(digests: Buffer): Map<string, number> {
  const hex = digests.toString('hex')
  const chunkOf = new Map<string, number>()
  for (let i = 0; i < hex.length / (2 * DIGEST_BYTES); i++) chunkOf.set(hex.slice(i * 2 * DIGEST_BYTES, (i + 1) * 2 * DIGEST_BYTES), i)
  return chunkOf
}

function headerBytes(embedder: CachedEmbedder): Buffer {
  const id = Buffer.from(embedderText(embedder, CODES_FORMAT))
  const out = Buffer.alloc(8 + pad4(id.length))
  out.writeUInt32LE(MAGIC, 0)
  out.writeUInt32LE(id.length, 4)
  id.copy(out, 8)
  return out
}

/** The memo in `bytes` when it was written for this embedder and codes of `dims` dimensions, whole; else undefined. */
function readMemo(bytes: Buffer, header: Buffer, dims: number): Memo | undefined {
  const digestsAt = header.length + DIGEST_BYTES + 4
  const sumAt = bytes.length - DIGEST_BYTES
  if (sumAt < digestsAt || !bytes.subarray(0, header.length).equals(header)) return undefined
  if (sha256(bytes.subarray(0, sumAt)) !== bytes.toString('hex', sumAt)) return undefined
  const n = bytes.readUInt32LE(digestsAt - 4)
  const codesAt = digestsAt + n * DIGEST_BYTES
  if (codesAt > sumAt) return undefined
  let codes: VectorCodes
  try {
    codes = decodeVectorCodes(bytes.subarray(codesAt, sumAt), n, dims, 'code memo')
  } catch {
    // For vectors of other dimensions: only a slower run.
    return undefined
  }
  return { sampleKey: bytes.toString('hex', header.length, header.length + DIGEST_BYTES), codes, digests: bytes.subarray(digestsAt, codesAt) }
}

function memoBytes(header: Buffer, sampleKey: string, digests: readonly string[], codes: Uint8Array): Buffer {
  const digestsAt = header.length + DIGEST_BYTES + 4
  const sumAt = digestsAt + digests.length * DIGEST_BYTES + codes.length
  const out = Buffer.alloc(sumAt + DIGEST_BYTES)
  header.copy(out)
  out.write(sampleKey, header.length, 'hex')
  out.writeUInt32LE(digests.length, digestsAt - 4)
  out.write(digests.join(''), digestsAt, 'hex')
  out.set(codes, digestsAt + digests.length * DIGEST_BYTES)
  out.write(sha256(out.subarray(0, sumAt)), sumAt, 'hex')
  return out
}
