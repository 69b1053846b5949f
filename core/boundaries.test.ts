import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const CORE = dirname(fileURLToPath(import.meta.url))

/** core's product modules (tests and their helpers may reach into fixtures/). */
function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return productFiles(path)
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && e.name !== 'test-helpers.ts' ? [path] : []
  })
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((m) => (m[1] ?? m[2] ?? m[3])!)
}

describe('core/ runs unchanged in the browser, in Node and in a Worker', () => {
  const files = productFiles(CORE)

  it('imports nothing above it (indexer, proxy, widget, cli) and no node: module', () => {
    const offending = files.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('node:') || (spec.startsWith('.') && relative(CORE, resolve(dirname(file), spec)).startsWith('..')))
        .map((spec) => `${relative(CORE, file)} imports ${spec}`),
    )
    expect(files.length).toBeGreaterThan(50)
    expect(offending).toEqual([])
  })

  it('touches no DOM global', () => {
    const dom = /\b(?:document|window|localStorage|sessionStorage|navigator)\s*\./
    expect(files.filter((file) => dom.test(readFileSync(file, 'utf8'))).map((f) => relative(CORE, f))).toEqual([])
  })
})
