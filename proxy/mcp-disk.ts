/**
 * The docs as Node serves them to agents: the index folder and the site's
 * output folder (llms.txt, page copies) read from disk. Used by the Node
 * proxy's MCP route and by `docpilot mcp` over stdio.
 */
import { readFile } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Transport } from '../core/ladder/attempt.ts'
import type { DocsSite } from '../core/mcp/docs-server.ts'
import type { PartLoader } from '../core/index/parts.ts'
import type { DenseOptions } from '../core/retrieval/hybrid.ts'
import type { DocIndex } from '../core/retrieval/search.ts'
import { onOrigin, siteRelativePath } from '../core/site-files.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { pathToUrl } from '../indexer/urls.ts'
import { keptIndex, serveMcp, siteOriginOf, throughProxy, type McpMount } from './mcp.ts'
import type { McpSettings } from './mcp-settings.ts'

export interface DiskDocs {
  /** The index folder (holds manifest.json). */
  indexDir: string
  /** The site output folder `docpilot index` wrote llms.txt and the page copies to. */
  siteDir: string
  /** How the index folder's parts are read (default: from disk). */
  loader?: PartLoader
}

/**
 * The index of `docs.indexDir` as this process serves it: one kept reader per
 * folder (keptIndex), made by whoever asks first, with that caller's loader
 * and options. A server's start-up check and its searches open it once.
 */
export function diskIndex(docs: Pick<DiskDocs, 'indexDir' | 'loader'>, opts?: Pick<DenseOptions, 'transport'>): () => Promise<DocIndex> {
  const indexDir = resolve(docs.indexDir)
  return keptIndex(`file:${indexDir}`, docs.loader ?? fsPartLoader(indexDir), opts)
}

export interface DiskSiteOptions {
  /** The site's origin (resource URIs, cited page URLs); without one, resources are file:// URLs and page URLs stay as the index has them. */
  origin?: string
  /** Per-request route to a hosted embedder (the proxy's own). */
  embedTransport?: Transport
  /** How the kept index reaches a hosted embedder when no per-request route is given (stdio: the provider, with the key in this environment). */
  index?: Pick<DenseOptions, 'transport'>
}

export function diskSite(docs: DiskDocs, mcp: Pick<McpSettings, 'siteUrl' | 'urls'>, opts: DiskSiteOptions = {}): DocsSite {
  const siteDir = resolve(docs.siteDir)
  const origin = opts.origin
  const fileOf = (url: string): string | undefined => {
    const rel = siteRelativePath(url, mcp.siteUrl)
    if (rel === undefined) return undefined
    const file = resolve(siteDir, rel)
    return file.startsWith(siteDir + sep) ? file : undefined
  }
  return {
    index: diskIndex(docs, opts.index),
    ...(opts.embedTransport ? { embedTransport: opts.embedTransport } : {}),
    siteUrl: mcp.siteUrl,
    uriOf: (url) => (opts.origin ? new URL(url, opts.origin).href : pathToFileURL(fileOf(url) ?? resolve(siteDir, url.replace(/^\/+/, ''))).href),
    ...(origin ? { citeUrl: (url: string) => onOrigin(url, origin) } : {}),
    urlOfPath: (path) => pathToUrl(path, mcp.urls),
    async file(url) {
      const file = fileOf(url)
      if (!file) return undefined
      try {
        return await readFile(file, 'utf8')
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        // ENAMETOOLONG: a name no file can have is a page that is not there (not an error that shows the folder's path).
        if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return undefined
        throw err
      }
    },
  }
}

/** Node: the index and the agent files read from these folders. */
export function diskMcp(docs: DiskDocs): McpMount {
  return (c, rt, self) =>
    serveMcp(
      c.req.raw,
      diskSite(docs, rt.settings.mcp, { origin: siteOriginOf(c.req.raw, rt), embedTransport: throughProxy(self, c.req.raw) }),
      { maxBodyBytes: rt.settings.proxy.maxBodyBytes },
    )
}
