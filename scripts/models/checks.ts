/**
 * Checks that a sentence encoder is what it claims to be, on behaviour a
 * broken conversion, a wrong tokenizer or shuffled weights get wrong:
 * - the tokenizer gives BERT's known ids for a known sentence;
 * - vectors have the declared width and unit length;
 * - a paraphrase pair scores well above unrelated pairs (each model's own
 *   published behaviour, with room for int8 rounding: cosine scales differ,
 *   e5 puts any two English sentences above 0.7);
 * - two independent builds of one model (a converted float32 graph and a
 *   third party's int8 export) agree on every sentence.
 */
import type { Embedder } from '../../core/embed/types.ts'
import type { Tokenizer } from '../../core/embed/tokenizer.ts'

export const CHECK_SENTENCES = [
  'A man is eating food.',
  'A man is eating a piece of bread.',
  'The new movie is awesome.',
  'How do I let readers subscribe from a feed reader?',
  'Add an RSS feed to your site.',
  'Set a cookie on the response.',
] as const

/** The reader's question among CHECK_SENTENCES: embedded as a question (with the model's query prompt, if any), the others as passages. */
const QUESTION = 3

export interface CheckSpec {
  /** Sentence pairs (indexes into CHECK_SENTENCES) and the cosine range a working encoder gives. */
  pairs: { a: number; b: number; min?: number; max?: number }[]
  /** The related pair must beat the unrelated one by this much (reader words vs the docs' term). */
  orders: { related: [number, number]; unrelated: [number, number]; margin: number }[]
}

export const MINILM_CHECKS: CheckSpec = {
  pairs: [{ a: 0, b: 1, min: 0.6 }, { a: 0, b: 2, max: 0.2 }, { a: 3, b: 4, min: 0.35 }],
  orders: [
    { related: [3, 4], unrelated: [3, 5], margin: 0.15 },
    { related: [3, 4], unrelated: [4, 5], margin: 0.1 },
  ],
}

/** bert-base-uncased WordPiece ids, shared by MiniLM, bge, e5 and gte. */
export const BERT_UNCASED_PROBE = { text: 'Hello, world! Routing cookies.', ids: [101, 7592, 1010, 2088, 999, 16972, 16324, 1012, 102] }

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0)

export interface CheckReport {
  failures: string[]
  similarities: { a: string; b: string; cosine: number }[]
}

export async function checkEncoder(name: string, embedder: Embedder, dims: number, tokenizer?: Tokenizer, spec: CheckSpec = MINILM_CHECKS): Promise<CheckReport> {
  const failures: string[] = []
  if (tokenizer) {
    const ids = tokenizer.encode(BERT_UNCASED_PROBE.text).ids
    if (ids.join(',') !== BERT_UNCASED_PROBE.ids.join(',')) failures.push(`${name}: tokenizer gives [${ids}] for "${BERT_UNCASED_PROBE.text}", BERT uncased gives [${BERT_UNCASED_PROBE.ids}]`)
  }
  const vectors = await embedder.embed([...CHECK_SENTENCES], { purpose: 'document' })
  vectors[QUESTION] = (await embedder.embed([CHECK_SENTENCES[QUESTION]], { purpose: 'query' }))[0]!
  vectors.forEach((v, i) => {
    if (v.length !== dims) failures.push(`${name}: vector ${i} has ${v.length} dims, expected ${dims}`)
    const norm = Math.sqrt(dot(v, v))
    if (Math.abs(norm - 1) > 1e-4) failures.push(`${name}: vector ${i} has length ${norm.toFixed(5)}, expected 1`)
  })
  const similarities = spec.pairs.map(({ a, b, min, max }) => {
    const cosine = dot(vectors[a]!, vectors[b]!)
    if (min !== undefined && !(cosine >= min)) failures.push(`${name}: "${CHECK_SENTENCES[a]}" vs "${CHECK_SENTENCES[b]}" = ${cosine.toFixed(3)}, a working encoder gives at least ${min}`)
    if (max !== undefined && !(cosine <= max)) failures.push(`${name}: "${CHECK_SENTENCES[a]}" vs "${CHECK_SENTENCES[b]}" = ${cosine.toFixed(3)}, a working encoder gives at most ${max}`)
    return { a: CHECK_SENTENCES[a]!, b: CHECK_SENTENCES[b]!, cosine }
  })
  const cos = ([a, b]: [number, number]) => dot(vectors[a]!, vectors[b]!)
  for (const { related, unrelated, margin } of spec.orders) {
    const [r, u] = [cos(related), cos(unrelated)]
    if (!(r - u >= margin)) {
      failures.push(`${name}: "${CHECK_SENTENCES[related[0]]}" is closer to "${CHECK_SENTENCES[unrelated[1]]}" (${u.toFixed(3)}) than a working encoder allows next to "${CHECK_SENTENCES[related[1]]}" (${r.toFixed(3)}, margin ${margin})`)
    }
  }
  return { failures, similarities }
}

/** Two builds of one model must give nearly the same vector for every sentence. */
export async function checkAgreement(a: { name: string; embedder: Embedder }, b: { name: string; embedder: Embedder }, minCosine = 0.99): Promise<string[]> {
  const [va, vb] = await Promise.all([a.embedder.embed([...CHECK_SENTENCES]), b.embedder.embed([...CHECK_SENTENCES])])
  return va.flatMap((v, i) => {
    const c = dot(v, vb[i]!)
    return c >= minCosine ? [] : [`${a.name} and ${b.name} disagree on "${CHECK_SENTENCES[i]}": cosine ${c.toFixed(4)} < ${minCosine}`]
  })
}
