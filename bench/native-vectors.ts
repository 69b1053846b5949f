/**
 * Passage vectors of an ONNX model folder computed by native onnxruntime
 * (scripts/models/embed_texts.py: same model, tokenizer, pooling and prompts
 * as the WebAssembly embedder, several times faster), kept across runs in
 * .cache/bench-vectors, one store per model digest, by the sha256 of each
 * text: a re-run, or a run after chunking changed a few chunks, embeds only
 * the texts the store lacks.
 *
 * Store: uint32 dims, then records of [32-byte text sha256][dims float32].
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { ONNX_OPTIONAL_FILES } from '../core/embed/onnx-folder.ts'

const STORE_DIR = resolve(import.meta.dirname, '../.cache/bench-vectors')

const sha256 = (b: string | Uint8Array) => createHash('sha256').update(b).digest()
/** Texts per embed_texts.py run. */
const BATCH = 400

function storeFile(modelDir: string): string {
  const digest = createHash('sha256')
  for (const f of ['model.onnx', 'tokenizer.json', ...ONNX_OPTIONAL_FILES]) if (existsSync(join(modelDir, f))) digest.update(f).update(readFileSync(join(modelDir, f)))
  return join(STORE_DIR, `${basename(modelDir)}-${digest.digest('hex').slice(0, 16)}.bin`)
}

function readStore(file: string): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>()
  if (!existsSync(file)) return out
  const b = readFileSync(file)
  const dims = b.readUInt32LE(0)
  const record = 32 + dims * 4
  for (let at = 4; at + record <= b.length; at += record) {
    out.set(b.subarray(at, at + 32).toString('hex'), new Float32Array(new Uint8Array(b.subarray(at + 32, at + record)).buffer))
  }
  return out
}

export function nativeVectors(modelDir: string, texts: string[], work: string, log: (l: string) => void): Float32Array[] {
  const file = storeFile(modelDir)
  const store = readStore(file)
  const keys = texts.map((t) => sha256(t))
  const missing = [...new Set(texts.filter((_, i) => !store.has(keys[i]!.toString('hex'))))]
  if (missing.length) log(`  ${basename(modelDir)}: embedding ${missing.length} of ${texts.length} texts with native onnxruntime`)
  // A batch at a time, each stored as soon as it is done: an interrupted run keeps what it embedded.
  for (let b = 0; b < missing.length; b += BATCH) {
    const batch = missing.slice(b, b + BATCH)
    const textsFile = join(work, `native-${basename(modelDir)}.jsonl`)
    const vecFile = join(work, `native-${basename(modelDir)}.f32`)
    writeFileSync(textsFile, batch.map((t) => JSON.stringify(t)).join('\n') + '\n')
    execFileSync(process.env.PYTHON ?? 'python3', [join(import.meta.dirname, '../scripts/models/embed_texts.py'), modelDir, textsFile, vecFile], { stdio: ['ignore', 'ignore', 'inherit'] })
    const flat = new Float32Array(new Uint8Array(readFileSync(vecFile)).buffer)
    const dims = flat.length / batch.length
    mkdirSync(STORE_DIR, { recursive: true })
    if (!existsSync(file)) writeFileSync(file, Buffer.from(new Uint32Array([dims]).buffer))
    appendFileSync(file, Buffer.concat(batch.flatMap((t, i) => [sha256(t), Buffer.from(flat.slice(i * dims, (i + 1) * dims).buffer)])))
    batch.forEach((t, i) => store.set(sha256(t).toString('hex'), flat.slice(i * dims, (i + 1) * dims)))
    log(`  ${basename(modelDir)}: ${Math.min(b + BATCH, missing.length)}/${missing.length} embedded`)
  }
  return keys.map((k) => store.get(k.toString('hex'))!)
}
