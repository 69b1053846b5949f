/**
 * Proxy bench: the same streaming chat request sent straight to the fake
 * OpenAI upstream ("direct") and through the Node proxy ("proxied"), on
 * loopback, interleaved so both see the same machine state.
 *
 * - TTFB: request start to the first body byte (the SSE head frames), median
 *   and p95, at three simulated upstream first-token delays: 0 ms (the proxy's
 *   bare overhead), 50 ms (far quicker than any hosted model) and 300 ms (a
 *   quick hosted model's first token). Target: proxied median <= 1.1x direct.
 *   The added milliseconds are the figure that carries across machines; the
 *   load average is printed because on a shared machine every extra hop
 *   waits for a core.
 * - Requests/s: whole streamed answers at a fixed concurrency.
 *
 * `npm run bench -- --only proxy`, or `npx tsx bench/proxy.ts`.
 */
import { cpus, loadavg } from 'node:os'
import { startFakeProviders } from '../fixtures/providers/index.ts'
import { serveProxy } from '../proxy/node.ts'
import { parseProxySettings } from '../proxy/settings.ts'
import { median, p95 } from './stats.ts'

const BODY = JSON.stringify({ model: 'gpt-4o-mini', stream: true, max_tokens: 64, messages: [{ role: 'user', content: 'How do I set a header?' }] })

async function ttfb(url: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: BODY })
  const reader = res.body!.getReader()
  await reader.read()
  const t = performance.now() - t0
  // Drain so the connection is reused, as a browser would.
  while (!(await reader.read()).done) {
    /* drain */
  }
  return t
}

async function whole(url: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: BODY })
  if (res.status !== 200) throw new Error(`bench request answered ${res.status}`)
  await res.arrayBuffer()
}

async function throughput(send: () => Promise<void>, concurrency: number, durationMs: number): Promise<number> {
  let done = 0
  const end = performance.now() + durationMs
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await send()
        done++
      }
    }),
  )
  return done / (durationMs / 1000)
}

export interface ProxyBenchResult {
  ttfb: { upstreamDelayMs: number; samples: number; directMedianMs: number; proxiedMedianMs: number; directP95Ms: number; proxiedP95Ms: number; ratio: number }[]
  throughput: { concurrency: number; directRps: number; proxiedRps: number; ratio: number }
}

export interface ProxyBenchOptions {
  /** Scales the sample counts and the throughput window. */
  rounds: number
  log: (line: string) => void
}

export async function run(opts: ProxyBenchOptions): Promise<ProxyBenchResult> {
  const { log } = opts
  const samples = 150 * opts.rounds
  const load = () => loadavg()[0]!.toFixed(1)
  log(`${cpus().length} cores, load average ${load()} at start`)
  const fakes = await startFakeProviders()
  const env = fakes.env()
  const proxy = await serveProxy({
    settings: parseProxySettings({
      routes: [{ member: 'openai', chatModels: ['gpt-4o-mini'] }],
      proxy: { siteOrigins: ['http://127.0.0.1'], rateLimit: { perMinute: 10_000_000, burst: 1_000_000 } },
    }),
    env,
    dbPath: ':memory:',
  })
  const direct = { url: `${fakes.baseUrl('openai')}/chat/completions`, headers: { authorization: `Bearer ${env.OPENAI_API_KEY}` } }
  const proxied = { url: `${proxy.url}/ai/openai/chat/completions`, headers: {} }
  const result: ProxyBenchResult = { ttfb: [], throughput: { concurrency: 0, directRps: 0, proxiedRps: 0, ratio: 0 } }
  try {
    for (const delayMs of [0, 50, 300]) {
      await fakes.reset()
      await fakes.control({ member: 'openai', deltas: 4, paceMs: 0, delayMs })
      for (let i = 0; i < 20; i++) {
        await ttfb(direct.url, direct.headers)
        await ttfb(proxied.url, proxied.headers)
      }
      const d: number[] = []
      const p: number[] = []
      const n = delayMs === 0 ? samples : Math.ceil(samples / (delayMs >= 300 ? 10 : 5))
      for (let i = 0; i < n; i++) {
        // Alternate which goes first so neither side always runs on a warmer machine.
        if (i % 2) {
          d.push(await ttfb(direct.url, direct.headers))
          p.push(await ttfb(proxied.url, proxied.headers))
        } else {
          p.push(await ttfb(proxied.url, proxied.headers))
          d.push(await ttfb(direct.url, direct.headers))
        }
      }
      const row = {
        upstreamDelayMs: delayMs,
        samples: n,
        directMedianMs: median(d),
        proxiedMedianMs: median(p),
        directP95Ms: p95(d),
        proxiedP95Ms: p95(p),
        ratio: median(p) / median(d),
      }
      result.ttfb.push(row)
      log(
        `TTFB, upstream first token after ${delayMs} ms (${n} each): direct ${row.directMedianMs.toFixed(2)} ms (p95 ${row.directP95Ms.toFixed(2)}), ` +
          `proxied ${row.proxiedMedianMs.toFixed(2)} ms (p95 ${row.proxiedP95Ms.toFixed(2)}), ratio ${row.ratio.toFixed(3)}x, ` +
          `added ${(row.proxiedMedianMs - row.directMedianMs).toFixed(2)} ms`,
      )
    }

    await fakes.reset()
    await fakes.control({ member: 'openai', deltas: 4, paceMs: 0 })
    const concurrency = 8
    const durationMs = 1000 * opts.rounds
    const directRps = await throughput(() => whole(direct.url, direct.headers), concurrency, durationMs)
    const proxiedRps = await throughput(() => whole(proxied.url, proxied.headers), concurrency, durationMs)
    result.throughput = { concurrency, directRps, proxiedRps, ratio: proxiedRps / directRps }
    log(`requests/s at concurrency ${concurrency}: direct ${directRps.toFixed(0)}, proxied ${proxiedRps.toFixed(0)} (${(100 * proxiedRps / directRps).toFixed(0)}% of direct)`)
    for (const r of result.ttfb.filter((row) => row.upstreamDelayMs > 0)) {
      log(`target proxied TTFB <= 1.1x direct, ${r.upstreamDelayMs} ms upstream: ${r.ratio <= 1.1 ? 'met' : 'NOT met'} (${r.ratio.toFixed(3)}x)`)
    }
    log(`load average ${load()} at end`)
  } finally {
    proxy.close()
    await fakes.close()
  }
  return result
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run({ rounds: 2, log: (line) => console.log(line) })
}
