import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { l2normalize } from '../core/embed/types.ts'
import { CODE_SAMPLE, codeSample, encodeVectorCodes } from '../core/index/vectors.ts'
import { memoizedVectorCodes, type CodesInput } from './code-memo.ts'
import { textDigest } from './embed-cache.ts'

const DIMS = 16
const embedder = { id: 'test-embedder', model: 'static:test', dims: DIMS }

/**
 * A text's vector, fixed by its text: dimension d scaled by 2^-d, so that the dimensions' variances
 * are far apart and keep their order when a few vectors change, but for dimension 3, the negative of
 * dimension 2 (their variances tie, and 2 goes first). A text starting with '~' has 0 in dimension 2
 * (3 goes first: the two swap), one starting with '!' a large last dimension (it moves up the order).
 */
function vectorOf(text: string, dims = DIMS): Float32Array {
  let s = Number.parseInt(textDigest(text).slice(0, 8), 16)
  const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1
  const v = Float64Array.from({ length: dims }, (_, d) => (text.startsWith('!') && d === dims - 1 ? 40 : rand() * 2 ** -d))
  v[3] = -v[2]!
  if (text.startsWith('~')) v[2] = 0
  return l2normalize(v)
}

/** A run over these chunk texts: the memoized codes, checked against encodeVectorCodes of the same vectors. */
async function run(cacheDir: string, texts: readonly string[], over: Partial<CodesInput> = {}) {
  const input: CodesInput = {
    cacheDir,
    scope: '/out',
    embedder,
    vectors: texts.map((t) => vectorOf(t)),
    dims: DIMS,
    digests: texts.map(textDigest),
    embedded: [],
    ...over,
  }
  const result = await memoizedVectorCodes(input)
  expect(Buffer.from(result.codes).equals(Buffer.from(encodeVectorCodes(input.vectors, input.dims)))).toBe(true)
  return { measured: result.measured, coded: result.coded, recoded: result.recodedPositions }
}

const texts = (n: number, tag = '') => Array.from({ length: n }, (_, i) => `chunk ${i}${tag}`)
const memoFile = (dir: string) => join(dir, 'codes', readdirSync(join(dir, 'codes'))[0]!)
/** A position the sample of `n` chunks measures. */
const sampled = (n: number) => codeSample(n)[10]!

describe('memoizedVectorCodes', () => {
  const N = 2 * CODE_SAMPLE + 300

  it('codes only the chunks a re-index changed, and measures the sample only when its chunks changed, writing what encodeVectorCodes writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-codes-'))
    const base = texts(N)
    expect(await run(dir, base)).toEqual({ measured: true, coded: N, recoded: 0 })
    expect(await run(dir, base)).toEqual({ measured: false, coded: 0, recoded: 0 })

    const editedOut = base.map((t, i) => (i === notSampled(N) ? `${t} edited` : t))
    expect(await run(dir, editedOut)).toEqual({ measured: false, coded: 1, recoded: 0 })
    const editedIn = editedOut.map((t, i) => (i === sampled(N) ? `${t} edited` : t))
    expect(await run(dir, editedIn)).toEqual({ measured: true, coded: 1, recoded: 0 })

    // Chunks added or removed shift the sample: it is measured again, and only the new chunk coded.
    const added = [...editedIn.slice(0, 100), 'a new chunk', ...editedIn.slice(100)]
    expect(await run(dir, added)).toEqual({ measured: true, coded: 1, recoded: 0 })
    const removed = added.filter((_, i) => i % 500 !== 7)
    expect(await run(dir, removed)).toEqual({ measured: true, coded: 0, recoded: 0 })
    const reordered = [...removed.slice(1000).reverse(), ...removed.slice(0, 1000)]
    expect(await run(dir, reordered)).toEqual({ measured: true, coded: 0, recoded: 0 })
    // Two chunks of one text share a digest (and a vector): the second's code is the first's.
    const duplicated = reordered.map((t, i) => (i === 40 || i === 41 ? reordered[2000]! : t))
    expect(await run(dir, duplicated)).toEqual({ measured: true, coded: 0, recoded: 0 })
  })

  it('sets again, in every copied code, the bits of the code positions whose dimension changed, and codes every chunk when most changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-codes-'))
    const base = texts(N)
    await run(dir, base)
    // Dimensions 2 and 3 swap places.
    const swapped = base.map((t, i) => (i === sampled(N) ? `~${t}` : t))
    expect(await run(dir, swapped)).toEqual({ measured: true, coded: 1, recoded: 2 })
    expect(await run(dir, swapped)).toEqual({ measured: false, coded: 0, recoded: 0 })
    // The last dimension moves up past most others.
    const reordering = swapped.map((t, i) => (i === codeSample(N)[20] || i === codeSample(N)[30] ? `!${t}` : t))
    expect(await run(dir, reordering)).toEqual({ measured: true, coded: N, recoded: 0 })
    expect(await run(dir, reordering)).toEqual({ measured: false, coded: 0, recoded: 0 })
  })

  it('measures and codes a small site whole the first time, and nothing again when nothing changed, leaving the memo unwritten', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-codes-'))
    expect(await run(dir, texts(40))).toEqual({ measured: true, coded: 40, recoded: 0 })
    const before = statSync(memoFile(dir))
    expect(await run(dir, texts(40))).toEqual({ measured: false, coded: 0, recoded: 0 })
    expect(statSync(memoFile(dir))).toMatchObject({ ino: before.ino, mtimeMs: before.mtimeMs })
    expect(await run(dir, texts(40).map((t, i) => (i === 3 ? 'changed' : t)))).toMatchObject({ measured: true, coded: 1 })
    expect(await run(dir, [])).toEqual({ measured: true, coded: 0, recoded: 0 })
  })

  it("codes a chunk embedded this run from its vector, whatever the memo holds for its digest (a hosted embedder's vectors may differ), and measures a sample holding one", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-codes-'))
    const base = texts(N)
    await run(dir, base)
    // The vectors the embedding cache holds after each run: those of the chunks embedded again replaced.
    const vectors = base.map((t) => vectorOf(t))
    const embedAgain = (i: number) => (vectors[i] = vectorOf(`${base[i]} embedded again`))
    embedAgain(notSampled(N))
    expect(await run(dir, base, { vectors, embedded: [notSampled(N)] })).toEqual({ measured: false, coded: 1, recoded: 0 })
    embedAgain(sampled(N))
    expect(await run(dir, base, { vectors, embedded: [sampled(N)] })).toEqual({ measured: true, coded: 1, recoded: 0 })
    expect(await run(dir, base, { vectors })).toEqual({ measured: false, coded: 0, recoded: 0 })
  })

  it('takes a damaged, cut short or foreign memo for a miss', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-codes-'))
    const base = texts(300)
    await run(dir, base)
    const good = readFileSync(memoFile(dir))
    const spoil = async (bytes: Buffer) => {
      writeFileSync(memoFile(dir), bytes)
      return run(dir, base)
    }
    const miss = { measured: true, coded: 300, recoded: 0 }
    expect(await spoil(good.subarray(0, good.length - 40))).toEqual(miss)
    expect(await spoil(good.subarray(0, 20))).toEqual(miss)
    expect(await spoil(Buffer.alloc(0))).toEqual(miss)
    // One bit of one chunk's code, well inside the file.
    const flipped = Buffer.from(good)
    flipped[good.length - 100]! ^= 1
    expect(await spoil(flipped)).toEqual(miss)
    expect(await spoil(Buffer.from('not a memo at all, but long enough to hold a header and a sum of thirty-two bytes'))).toEqual(miss)
    // Another model's content (the file is the same one: content is in the header), or vectors of other dimensions.
    expect(await run(dir, base, { embedder: { ...embedder, content: 'rows=another' } })).toEqual(miss)
    expect(await run(dir, base, { vectors: base.map((t) => vectorOf(t, DIMS * 2)), dims: DIMS * 2 })).toEqual(miss)
    expect(await run(dir, base)).toEqual(miss)
    expect(await run(dir, base)).toEqual({ measured: false, coded: 0, recoded: 0 })
  })
})

/** A chunk position the sample of `n` chunks does not measure. */
function notSampled(n: number): number {
  const sample = new Set(codeSample(n))
  return Array.from({ length: n }, (_, i) => i).find((i) => i > 50 && !sample.has(i))!
}
