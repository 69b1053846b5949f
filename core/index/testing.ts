/**
 * Deterministic pseudo-random unit vectors, for the tests of the vector parts
 * and of their readers.
 */
import { l2normalize } from '../embed/types.ts'

export function unitVectors(n: number, dims: number, seed = 7): Float32Array[] {
  let s = seed
  const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1
  return Array.from({ length: n }, () => l2normalize(Float64Array.from({ length: dims }, rand)))
}
