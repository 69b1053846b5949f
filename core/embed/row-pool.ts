/**
 * The pooling every static embedder shares, whole table or rows fetched by
 * word: a text's vector is the sum of its known tokens' scaled rows in token
 * order, normalized, so every embedder gives identical vectors.
 *
 * The indexer pools every passage's every word, and docs repeat their words:
 * a pool looks each distinct word up once for all its texts, and adds each
 * distinct row of a text once, times its count, four rows a pass. That is the
 * token-order sum exactly when no addition rounds: a row's values are
 * integers and its scale a float32, so every product and partial sum is a
 * whole multiple of the smallest scale's lowest bit (more than that scale x
 * 2^-24), and none rounds while the largest possible magnitude, 128 x tokens
 * x largest scale, stays within float64's 53 bits of that (with the default
 * model: texts of up to ~120,000 tokens). Past that bound a text's rows are
 * added one token at a time, in order.
 */
import type { StaticRow } from './static.ts'
import { l2normalize } from './types.ts'

export class RowPool {
  /** Word -> its row's slot in `rows`, or -1 for a word outside the vocabulary. */
  private readonly slots = new Map<string, number>()
  private readonly rows: StaticRow[] = []
  /** Per slot, its count in the text being pooled (all zero between texts). */
  private times = new Uint32Array(1024)

  constructor(
    private readonly rowOf: (word: string) => StaticRow | undefined,
    private readonly dims: number,
  ) {}

  pool(tokens: readonly string[]): Float32Array {
    const used: number[] = []
    let known = 0
    for (const token of tokens) {
      const slot = this.slotOf(token)
      if (slot < 0) continue
      if (this.times[slot]!++ === 0) used.push(slot)
      known++
    }
    let smallest = Infinity
    let largest = 0
    for (const slot of used) {
      // A NaN scale makes both sums NaN, and the bound false.
      smallest = Math.min(smallest, Math.abs(this.rows[slot]!.scale))
      largest = Math.max(largest, Math.abs(this.rows[slot]!.scale))
    }
    const sum = 128 * known * largest <= 2 ** 29 * smallest ? this.sumRows(used) : this.sumInOrder(tokens)
    for (const slot of used) this.times[slot] = 0
    return l2normalize(sum)
  }

  private slotOf(word: string): number {
    let slot = this.slots.get(word)
    if (slot === undefined) {
      const row = this.rowOf(word)
      slot = row ? this.rows.push(row) - 1 : -1
      this.slots.set(word, slot)
      if (this.rows.length > this.times.length) {
        const grown = new Uint32Array(2 * this.times.length)
        grown.set(this.times)
        this.times = grown
      }
    }
    return slot
  }

  /** Each used row times its count, four rows a pass (one read and write of the sum for four rows). */
  private sumRows(used: readonly number[]): Float64Array {
    const { rows, times, dims } = this
    const sum = new Float64Array(dims)
    let u = 0
    for (; u + 3 < used.length; u += 4) {
      const { values: a, offset: oa, scale: ka } = rows[used[u]!]!
      const { values: b, offset: ob, scale: kb } = rows[used[u + 1]!]!
      const { values: c, offset: oc, scale: kc } = rows[used[u + 2]!]!
      const { values: e, offset: oe, scale: ke } = rows[used[u + 3]!]!
      const sa = ka * times[used[u]!]!
      const sb = kb * times[used[u + 1]!]!
      const sc = kc * times[used[u + 2]!]!
      const se = ke * times[used[u + 3]!]!
      for (let d = 0; d < dims; d++) sum[d] = sum[d]! + a[oa + d]! * sa + b[ob + d]! * sb + c[oc + d]! * sc + e[oe + d]! * se
    }
    for (; u < used.length; u++) {
      const { values, offset, scale } = rows[used[u]!]!
      const s = scale * times[used[u]!]!
      for (let d = 0; d < dims; d++) sum[d] = sum[d]! + values[offset + d]! * s
    }
    return sum
  }

  /** The tokens' rows, one token at a time. */
  private sumInOrder(tokens: readonly string[]): Float64Array {
    const sum = new Float64Array(this.dims)
    for (const token of tokens) {
      const slot = this.slotOf(token)
      if (slot < 0) continue
      const { scale, values, offset } = this.rows[slot]!
      for (let d = 0; d < this.dims; d++) sum[d] = sum[d]! + values[offset + d]! * scale
    }
    return sum
  }
}

/** One text pooled over rows looked up for it alone. */
export const poolRows = (tokens: readonly string[], rowOf: (word: string) => StaticRow | undefined, dims: number): Float32Array =>
  new RowPool(rowOf, dims).pool(tokens)
