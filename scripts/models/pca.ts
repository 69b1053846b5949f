/**
 * Principal components of a set of row vectors: the covariance matrix's
 * eigenvectors by cyclic Jacobi rotations (exact for a symmetric matrix, and
 * a few hundred dimensions take well under a second).
 */

export interface Pca {
  mean: Float64Array
  /** components[k] is the k-th principal direction (unit length), largest variance first. */
  components: Float64Array[]
  variances: number[]
}

export function pca(rows: readonly Float32Array[], keep: number): Pca {
  const n = rows.length
  const d = rows[0]!.length
  const mean = new Float64Array(d)
  for (const r of rows) for (let i = 0; i < d; i++) mean[i]! += r[i]! / n
  const cov = Array.from({ length: d }, () => new Float64Array(d))
  const c = new Float64Array(d)
  for (const r of rows) {
    for (let i = 0; i < d; i++) c[i] = r[i]! - mean[i]!
    for (let i = 0; i < d; i++) {
      const ci = c[i]!
      const row = cov[i]!
      for (let j = i; j < d; j++) row[j]! += ci * c[j]!
    }
  }
  for (let i = 0; i < d; i++) for (let j = i; j < d; j++) cov[j]![i] = cov[i]![j]! /= n
  const { values, vectors } = jacobiEigen(cov)
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]).slice(0, keep)
  return {
    mean,
    components: order.map(([, i]) => Float64Array.from({ length: d }, (_, r) => vectors[r]![i]!)),
    variances: order.map(([v]) => v),
  }
}

/** Eigenvalues and eigenvectors (columns of `vectors`) of a symmetric matrix. */
export function jacobiEigen(input: Float64Array[]): { values: number[]; vectors: Float64Array[] } {
  const n = input.length
  const a = input.map((r) => Float64Array.from(r))
  const v = Array.from({ length: n }, (_, i) => Float64Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)))
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p]![q]! ** 2
    if (off < 1e-22) break
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p]![q]!
        if (Math.abs(apq) < 1e-300) continue
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq)
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1))
        const cs = 1 / Math.sqrt(t * t + 1)
        const sn = t * cs
        for (let k = 0; k < n; k++) {
          const akp = a[k]![p]!
          const akq = a[k]![q]!
          a[k]![p] = cs * akp - sn * akq
          a[k]![q] = sn * akp + cs * akq
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p]![k]!
          const aqk = a[q]![k]!
          a[p]![k] = cs * apk - sn * aqk
          a[q]![k] = sn * apk + cs * aqk
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k]![p]!
          const vkq = v[k]![q]!
          v[k]![p] = cs * vkp - sn * vkq
          v[k]![q] = sn * vkp + cs * vkq
        }
      }
    }
  }
  return { values: a.map((r, i) => r[i]!), vectors: v }
}

/** Row projected on the components, after centering. */
export function project(p: Pca, row: Float32Array): Float64Array {
  const out = new Float64Array(p.components.length)
  p.components.forEach((comp, k) => {
    let s = 0
    for (let i = 0; i < row.length; i++) s += (row[i]! - p.mean[i]!) * comp[i]!
    out[k] = s
  })
  return out
}
