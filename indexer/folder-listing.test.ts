import { appendFileSync, mkdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { globSync } from 'tinyglobby'
import { describe, expect, it } from 'vitest'
import { tempDirs } from '../fixtures/temp-dirs.ts'
import { listingHolds, recordedWalk } from './folder-listing.ts'
import { fsInside, SETTLE_MS } from './read-source.ts'

const temp = tempDirs('docpilot-listing-')

/** A docs folder with a page at the top and one in a sub-folder. */
function docs(): string {
  const root = temp()
  mkdirSync(join(root, 'guide'))
  writeFileSync(join(root, 'index.md'), '# Home\n')
  writeFileSync(join(root, 'guide', 'start.md'), '# Start\n')
  return root
}

/** Lets every folder written so far settle (read-source.ts), so a walk's stamps can be trusted. */
const settle = () => new Promise((done) => setTimeout(done, SETTLE_MS.fine + 50))

function walk(root: string) {
  const recorded = recordedWalk(fsInside(root, () => {}))
  const files = globSync(['**/*.md'], { cwd: root, onlyFiles: true, fs: recorded.fs }).sort()
  return recorded.listing(files)
}

describe('a folder listing', () => {
  it('holds while no folder it read gains, loses or renames an entry, whatever happens to the files in them', async () => {
    const root = docs()
    await settle()
    const listing = walk(root)
    expect(listing?.files).toEqual(['guide/start.md', 'index.md'])
    expect(listing?.folders.length).toBe(2)
    appendFileSync(join(root, 'guide', 'start.md'), 'More.\n')
    expect(listingHolds(listing!)).toBe(true)
    const changes = [
      (dir: string) => writeFileSync(join(dir, 'guide', 'new.md'), '# New\n'),
      (dir: string) => unlinkSync(join(dir, 'guide', 'start.md')),
      (dir: string) => renameSync(join(dir, 'index.md'), join(dir, 'home.md')),
      (dir: string) => mkdirSync(join(dir, 'guide', 'deeper')),
    ]
    const roots = changes.map(() => docs())
    await settle()
    const listings = roots.map((dir) => walk(dir)!)
    changes.forEach((change, i) => change(roots[i]!))
    expect(listings.map(listingHolds)).toEqual([false, false, false, false])
  })

  it('is not kept from a walk that read a folder changed just before it, or met a link', async () => {
    expect(walk(docs())).toBeUndefined()
    const root = docs()
    symlinkSync(join(root, 'index.md'), join(root, 'guide', 'home.md'))
    await settle()
    expect(walk(root)).toBeUndefined()
  })
})
