/**
 * The word ranks an index carries for the gate (core/retrieval/rarity.ts): a
 * frequency-ordered English word list, most common first.
 *
 * A static model whose vocabulary is frequency-ordered already is such a
 * list: its model.json says how many of its rows are ranked
 * (`provenance.frequencyRanked`). Served split by word, its rows carry their
 * row number, so the gate reads a word's rank from the row the question's
 * embedding fetches anyway (no part at all); served whole, the index points
 * at its vocabulary file. Any other index (an ONNX or hosted embedder, or
 * lexical-only) gets the shipped default model's ranked words as a part of its
 * own. The shipped default is always frequency-ordered (its build script
 * keeps that order; a test checks it).
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { DEFAULT_MODEL_DIR } from '../cli/package-root.ts'
import type { StaticModelDescriptor } from '../core/embed/static-model.ts'
import { denseFileBytes, type DenseParts } from './embed.ts'
import { sha256 } from './sha256.ts'

export interface RanksPart {
  /** How many lines of the part are ranked. */
  words: number
  /** The part's file name; absent when the ranks are the split static model's own rows. */
  name?: string
  /** Its bytes, when the index does not already hold it as a model file. */
  bytes?: Uint8Array
}

const decoder = new TextDecoder()

/** How many rows of a static model's vocabulary are in frequency order (0: none known). */
function frequencyRanked(desc: StaticModelDescriptor): number {
  const ranked = desc.provenance?.frequencyRanked
  return typeof ranked === 'number' && ranked > 0 ? Math.min(ranked, desc.vocabSize) : 0
}

export async function ranksFor(dense: DenseParts | undefined): Promise<RanksPart> {
  const files = dense?.identity.files
  const descPart = files?.['model.json']
  const vocabPart = files?.['vocab.txt']
  if (dense && descPart && (vocabPart || dense.identity.rows)) {
    const desc = JSON.parse(decoder.decode(denseFileBytes(dense.files.find((f) => f.name === descPart)!))) as StaticModelDescriptor
    const words = frequencyRanked(desc)
    if (words) return dense.identity.rows ? { words } : { words, name: vocabPart! }
  }
  return shippedRanks()
}

/** The shipped default model's ranked words, as a part of their own. */
async function shippedRanks(): Promise<RanksPart> {
  const dir = fileURLToPath(DEFAULT_MODEL_DIR)
  const desc = JSON.parse(await readFile(`${dir}/model.json`, 'utf8')) as StaticModelDescriptor
  // The shipped default is frequency-ordered throughout unless it says how far.
  const words = frequencyRanked(desc) || desc.vocabSize
  const vocab = (await readFile(`${dir}/${desc.files.vocab}`, 'utf8')).split('\n').slice(0, words).join('\n') + '\n'
  const bytes = new TextEncoder().encode(vocab)
  return { words, name: `ranks.${sha256(bytes).slice(0, 16)}.txt`, bytes }
}
