import { describe, expect, it } from 'vitest'
import { jacobiEigen, pca, project } from './pca.ts'

describe('PCA', () => {
  it('finds the eigenpairs of a symmetric matrix', () => {
    const { values, vectors } = jacobiEigen([Float64Array.from([2, 1]), Float64Array.from([1, 2])])
    const order = values.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0])
    expect(order.map(([v]) => v)).toEqual([expect.closeTo(3, 10), expect.closeTo(1, 10)])
    const top = order[0]![1]
    expect(Math.abs(vectors[0]![top]!)).toBeCloseTo(Math.SQRT1_2, 10)
    expect(vectors[0]![top]! * vectors[1]![top]!).toBeGreaterThan(0)
  })

  it('keeps the direction of largest variance first and centers before projecting', () => {
    // Points along (1, 1, 0) with a little spread along (0, 0, 1), offset by (5, 5, 5).
    const rows = Array.from({ length: 50 }, (_, i) => {
      const t = i - 24.5
      const e = (i % 2 ? 1 : -1) * 0.1
      return Float32Array.from([5 + t, 5 + t, 5 + e])
    })
    const p = pca(rows, 2)
    expect(Math.abs(p.components[0]![0]!)).toBeCloseTo(Math.SQRT1_2, 5)
    expect(Math.abs(p.components[0]![2]!)).toBeLessThan(1e-3)
    expect(Math.abs(p.components[1]![2]!)).toBeCloseTo(1, 3)
    expect(p.variances[0]!).toBeGreaterThan(p.variances[1]! * 100)
    // The mean point projects to the origin.
    expect(Array.from(project(p, Float32Array.from([5, 5, 5])), (x) => Math.abs(x) < 1e-4)).toEqual([true, true])
  })
})
