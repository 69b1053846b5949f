/**
 * A long-lived server's view of an index that may be rebuilt under it: the
 * opened index is kept (its postings, texts and embedder stay warm across
 * requests) and manifest.json is read again at most once per interval; a
 * different corpus digest or creation time opens the new index. Parts are
 * content-addressed, so nothing else can go stale.
 */
import type { Manifest } from '../index/format.ts'
import { readManifest } from '../index/read-manifest.ts'
import type { DenseOptions } from '../retrieval/hybrid.ts'
import type { PartLoader } from '../index/parts.ts'
import { openIndex, type DocIndex } from '../retrieval/search.ts'

export const RECHECK_MS = 60_000

interface Opened {
  version: string
  index: Promise<DocIndex>
  checkedAt: number
}

const versionOf = (m: Manifest) => `${m.corpus.digest}@${m.createdAt}`

export function reopeningIndex(
  loader: PartLoader,
  opts: DenseOptions & { recheckMs?: number; now?: () => number } = {},
): () => Promise<DocIndex> {
  const now = opts.now ?? Date.now
  const recheckMs = opts.recheckMs ?? RECHECK_MS
  let opened: Opened | undefined

  const open = (manifest: Manifest): Opened => {
    const index = openIndex(loader, { ...opts, manifest })
    const entry: Opened = { version: versionOf(manifest), index, checkedAt: now() }
    // A failed open is not kept: the next request tries again.
    index.catch(() => {
      if (opened === entry) opened = undefined
    })
    return entry
  }

  return async () => {
    if (opened && now() - opened.checkedAt < recheckMs) return opened.index
    const manifest = await readManifest(loader)
    if (opened?.version === versionOf(manifest)) {
      opened.checkedAt = now()
      return opened.index
    }
    opened = open(manifest)
    return opened.index
  }
}
