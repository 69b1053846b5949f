/**
 * Test support for the agent surfaces: a shared corpus built the way an
 * owner builds it (index plus llms.txt and page copies), its dev questions,
 * and an official SDK client on either transport.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { ConfigSchema, type DocpilotConfig, type DocpilotConfigInput } from '../core/config/schema.ts'
import type { EvalQuestion } from '../core/eval/score.ts'
import { buildIndex } from '../indexer/build.ts'
import { siteFile } from '../cli/site-server.ts'
import { DEV_CORPORA, devCorpus, readDevSet, type DevCorpus, type DevCorpusName } from '../fixtures/dev-corpora.ts'
import { listen, stopServer } from './node.ts'

export type CorpusName = DevCorpusName

/**
 * Each shared corpus as its owner configures it. proxy.siteOrigins: a proxy
 * serves only with its site's origin named (any will do for agents, who send none).
 */
export const CORPORA = Object.fromEntries(
  DEV_CORPORA.map((c) => [c.name, { ...c, config: { ...c.config, proxy: { siteOrigins: ['http://127.0.0.1'] } } }]),
) as Record<CorpusName, DevCorpus & { config: DocpilotConfigInput }>

/** Every question of the corpus's dev files (shared/eval/<corpus>-dev{,-2}.jsonl). */
export function devQuestions(corpus: CorpusName): EvalQuestion[] {
  return devCorpus(corpus).sets.flatMap(readDevSet)
}

export interface BuiltSite {
  dir: string
  indexDir: string
  siteDir: string
  config: DocpilotConfig
  close(): Promise<void>
}

/** The corpus indexed into a temporary folder with its agent files; embedder from `env` ('auto': the offline default without keys). */
export async function buildCorpusSite(corpus: CorpusName, opts: { env?: Record<string, string | undefined>; config?: DocpilotConfigInput } = {}): Promise<BuiltSite> {
  const dir = await mkdtemp(join(tmpdir(), `docpilot-agents-${corpus}-`))
  const spec = CORPORA[corpus]
  const config = ConfigSchema.parse({ ...spec.config, ...opts.config })
  const indexDir = join(dir, 'site', 'docpilot')
  const siteDir = join(dir, 'site')
  await buildIndex({
    root: spec.root,
    mode: 'source',
    out: indexDir,
    config,
    docpilotVersion: 'test',
    ...(spec.include ? { include: [...spec.include] } : {}),
    embed: { env: opts.env ?? {}, cacheDir: join(dir, 'cache') },
    llms: { siteOut: siteDir },
  })
  return { dir, indexDir, siteDir, config, close: () => rm(dir, { recursive: true, force: true }) }
}

/** The official SDK client on the proxy's Streamable HTTP route; `received` collects every response as the client got it. */
export async function connectHttp(url: string, opts: { received?: string[] } = {}): Promise<Client> {
  const received = opts.received
  const recording = received
    ? async (input: string | URL, init?: RequestInit) => {
        const res = await fetch(input, init)
        received.push(`${res.status}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${await res.clone().text()}`)
        return res
      }
    : undefined
  for (let attempt = 1; ; attempt++) {
    const client = new Client({ name: 'docpilot-test', version: '0' })
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url), recording ? { fetch: recording } : {}))
      return client
    } catch (err) {
      // wrangler dev answers a POST with this 503 when it restarts the Worker
      // under the request (its own advice is to send it again); a connect is
      // a fresh session, so connecting again is exactly that.
      if (attempt >= 3 || !String(err).includes('Your worker restarted mid-request')) throw err
    }
  }
}

/**
 * The site's static host, over plain HTTP as `wrangler dev` can reach it
 * (workerd refuses a self-signed certificate, so the TLS bench host will not do).
 */
export async function serveSiteFolder(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = await listen(async (request) => {
    const file = siteFile(dir, new URL(request.url).pathname)
    if (!file) return new Response('not found', { status: 404 })
    const body = await readFile(file)
    // One byte range, as static hosts answer them (the index's packed parts are read by range).
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.get('range') ?? '')
    if (!range) return new Response(body)
    const start = Number(range[1])
    const end = Math.min(Number(range[2]), body.length - 1)
    return new Response(body.subarray(start, end + 1), { status: 206, headers: { 'content-range': `bytes ${start}-${end}/${body.length}` } })
  }, 0, '127.0.0.1')
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => stopServer(server) }
}
