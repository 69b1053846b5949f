/** Made-up index contents for the tests of the parts and of their readers. */
import { l2normalize } from '../embed/types.ts'
import type { ChunkRecord } from './format.ts'

/** A chunk of one section (title > heading) of the page at `path`. */
export const testChunk = (path: string, title: string, heading: string, text: string): ChunkRecord => ({
  id: `${path}#${heading}`,
  path,
  url: `/${path}`,
  anchor: heading.toLowerCase().replace(/\W+/g, '-'),
  title,
  trail: [title, heading],
  text,
})


/** Deterministic pseudo-random unit vectors. */
export function unitVectors(n: number, dims: number, seed = 7): Float32Array[] {
  let s = seed
  const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1
  return Array.from({ length: n }, () => l2normalize(Float64Array.from({ length: dims }, rand)))
}
