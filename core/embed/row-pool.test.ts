import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_DIR } from '../../cli/package-root.ts'
import { poolRows, RowPool } from './row-pool.ts'
import { StaticEmbedder, staticTokens, type StaticRow } from './static.ts'
import type { StaticModelDescriptor } from './static-model.ts'
import { l2normalize } from './types.ts'

/** The definition: each known token's scaled row added in token order, in float64, then normalized. */
function tokenOrderSum(tokens: readonly string[], rowOf: (t: string) => StaticRow | undefined, dims: number): Float32Array {
  const sum = new Float64Array(dims)
  for (const t of tokens) {
    const row = rowOf(t)
    if (row) for (let d = 0; d < dims; d++) sum[d] = sum[d]! + row.values[row.offset + d]! * row.scale
  }
  return l2normalize(sum)
}

describe('pooling static rows', () => {
  it('gives the token-order sum of scaled rows, whatever the dimension count and however often words repeat', () => {
    for (const dims of [1, 6, 7, 9]) {
      const values = Int8Array.from({ length: 6 * dims }, (_, i) => ((i * 37) % 255) - 127)
      const scales = [0.013, 0.0071, 0.29, 0.0042, 0.05, 0.11].map(Math.fround)
      const rows = Object.fromEntries([...'abcdef'].map((w, i): [string, StaticRow] => [w, { rank: i, scale: scales[i]!, values, offset: i * dims }]))
      const rowOf = (t: string) => rows[t]
      // Six distinct rows (one pass of four and two alone), repeated and interleaved with unknown words.
      for (const tokens of [['b', 'a', 'zz', 'c', 'a'], ['f', 'a', 'b', 'zz', 'c', 'd', 'e', 'a', 'f', 'f', 'b', 'e', 'qq', 'a']]) {
        expect(poolRows(tokens, rowOf, dims), `dims ${dims}: ${tokens.join(' ')}`).toEqual(tokenOrderSum(tokens, rowOf, dims))
      }
    }
  })

  it('adds rows token by token when their scales lie too far apart for the sum to be exact', () => {
    const values = Int8Array.from([100, 1, 1, 0, -100, 1])
    const rows: Record<string, StaticRow> = {
      a: { rank: 0, scale: 1, values, offset: 0 },
      b: { rank: 1, scale: 2 ** -60, values, offset: 2 },
      c: { rank: 2, scale: 1, values, offset: 4 },
    }
    const rowOf = (t: string) => rows[t]
    const tokens = ['a', 'b', 'c', 'b']
    // Grouped (a, b twice, c), b's two tiny values are lost against a; in token order the second survives.
    const grouped = l2normalize(Float64Array.from([100 + 2 * 2 ** -60 - 100, 2]))
    const inOrder = tokenOrderSum(tokens, rowOf, 2)
    expect(Array.from(grouped)).not.toEqual(Array.from(inOrder))
    expect(poolRows(tokens, rowOf, 2)).toEqual(inOrder)
  })

  it('pools long, repetitive passages of the default model as the token-order sum, one pool for many texts', () => {
    const read = (name: string) => readFileSync(new URL(name, DEFAULT_MODEL_DIR))
    const desc = JSON.parse(read('model.json').toString()) as StaticModelDescriptor
    const table = new StaticEmbedder(desc, read('vocab.txt').toString(), read('vectors.bin'))
    const looked: string[] = []
    const pool = new RowPool((w) => (looked.push(w), table.row(w)), desc.dims)
    const words = read('vocab.txt').toString().split('\n')
    const texts = [
      'Set a cookie on the response: the cookie helper signs the cookie value.',
      Array.from({ length: 3000 }, (_, i) => words[(i * i) % 5000]).join(' '),
      Array.from({ length: 500 }, (_, i) => words[60000 + (i % 40)]).join(' ') + ' zzqxw',
      'the the the',
    ]
    for (const text of [...texts, ...texts.reverse()]) {
      const tokens = staticTokens(text, desc.tokenizer.pattern)
      expect(pool.pool(tokens), text.slice(0, 40)).toEqual(tokenOrderSum(tokens, (w) => table.row(w), desc.dims))
    }
    // Each distinct word is looked up once, for all the texts.
    expect(looked.length).toBe(new Set(looked).size)
  })
})
