import { describe, expect, it } from 'vitest'
import { HostedEmbedder } from '../core/embed/hosted.ts'
import { adapterFor } from '../core/ladder/adapters/index.ts'
import { CHAIN } from '../core/providers/table.ts'
import { createProxyApp } from './app.ts'
import { MemoryState } from './node.ts'
import { filterQuery, matchPath, shapeBody } from './protocol.ts'
import { parseProxySettings } from './settings.ts'

describe('matchPath', () => {
  const request = { messages: [{ role: 'user' as const, content: 'hi' }], maxTokens: 64, temperature: 0 }

  it.each(CHAIN.map((s) => [s.id, s] as const))('%s: forwards the chat path its adapter calls, and the body keeps the token ceiling', (_, spec) => {
    const wire = adapterFor(spec.protocol).request('some-model', request)
    const url = new URL(wire.path, 'http://x')
    expect(matchPath(spec.protocol, url.pathname.slice(1))).toMatchObject({ kind: 'chat' })
    expect(filterQuery(spec.protocol, url.searchParams)).toBe(url.search)
    expect(shapeBody(spec.protocol, 'chat', JSON.parse(wire.body), 64)).toEqual({ body: JSON.parse(wire.body), clamped: false })
  })

  it.each(CHAIN.filter((s) => s.embeds).map((s) => [s.id, s] as const))('%s: forwards the embeddings path the hosted embedder calls', async (_, spec) => {
    const paths: string[] = []
    const transport = async (_m: unknown, req: { path: string }) => {
      paths.push(req.path)
      return new Response('{}', { status: 500 })
    }
    await new HostedEmbedder({ provider: spec.id, model: 'models/e-1', dims: 0 }, transport).embed(['x']).catch(() => undefined)
    expect(matchPath(spec.protocol, paths[0]!.slice(1))).toMatchObject({ kind: 'embed' })
  })

  it('refuses paths a protocol does not need, and reads the model Gemini names in the path', () => {
    expect(matchPath('openai', 'files')).toBeUndefined()
    expect(matchPath('anthropic', 'messages/batches')).toBeUndefined()
    expect(matchPath('gemini', 'models/gemini-2.0-flash:streamGenerateContent')).toEqual({ kind: 'chat', pathModel: 'gemini-2.0-flash' })
    expect(matchPath('gemini', 'models/a/b:streamGenerateContent')).toBeUndefined()
    expect(matchPath('gemini', 'models/x:generateContent')).toBeUndefined()
    expect(filterQuery('gemini', new URLSearchParams('alt=sse&key=leak'))).toBe('?alt=sse')
    expect(filterQuery('openai', new URLSearchParams('alt=sse'))).toBe('')
  })
})

describe('shapeBody', () => {
  it('forwards only the fields a protocol needs, one answer per request', () => {
    const openai = shapeBody('openai', 'chat', { model: 'm', messages: [], n: 128, best_of: 20, tools: [{}], logprobs: true, max_tokens: 100 }, 512)
    expect(openai.body).toEqual({ model: 'm', messages: [], n: 1, max_tokens: 100 })
    expect(openai.clamped).toBe(false)
    const anthropic = shapeBody('anthropic', 'chat', { model: 'm', messages: [], max_tokens: 10, metadata: { user_id: 'x' }, tools: [] }, 512)
    expect(anthropic.body).toEqual({ model: 'm', messages: [], max_tokens: 10 })
  })

  it('clamps every spelling of the token limit (Gemini takes snake_case and camelCase) and forces candidateCount to 1', () => {
    const { body, clamped } = shapeBody(
      'gemini',
      'chat',
      { contents: [], generationConfig: { maxOutputTokens: 100, candidateCount: 8 }, generation_config: { max_output_tokens: 999_999, candidate_count: 8 }, cachedContent: 'x' },
      512,
    )
    expect(body).toEqual({ contents: [], generationConfig: { maxOutputTokens: 512, candidateCount: 1 } })
    expect(clamped).toBe(true)
    expect(JSON.stringify(body)).not.toMatch(/999999|_/)
  })

  it('clamps OpenAI, Anthropic and Ollama limits, writing one where absent; non-integer and negative values are clamped', () => {
    expect(shapeBody('openai', 'chat', { model: 'm', max_completion_tokens: 9999 }, 512).body).toEqual({ model: 'm', max_completion_tokens: 512 })
    expect(shapeBody('openai', 'chat', { model: 'm', maxTokens: 9999 }, 512).body).toEqual({ model: 'm', max_tokens: 512 })
    expect(shapeBody('anthropic', 'chat', { model: 'm', max_tokens: 1e9 }, 512).body).toEqual({ model: 'm', max_tokens: 512 })
    expect(shapeBody('ollama', 'chat', { model: 'm', options: { num_predict: -1, numPredict: 5 } }, 512).body).toEqual({ model: 'm', options: { num_predict: 512 } })
    expect(shapeBody('openai', 'chat', { model: 'm', max_tokens: 10.5 }, 512).body).toEqual({ model: 'm', max_tokens: 512 })
  })

  it('forwards message and part contents only as text: no media a provider would fetch and bill as input', () => {
    const image = { type: 'image_url', image_url: { url: 'https://tracker.example/1.png', detail: 'high' } }
    const openai = shapeBody('openai', 'chat', { model: 'm', messages: [{ role: 'user', content: [image, image] }, { role: 'user', content: 'hi', name: 'x' }] }, 512)
    expect(openai.body.messages).toEqual([{ role: 'user' }, { role: 'user', content: 'hi' }])

    const pdf = { type: 'document', source: { type: 'url', url: 'https://example.org/500-pages.pdf' } }
    const anthropic = shapeBody('anthropic', 'chat', { model: 'm', system: [pdf], messages: [{ role: 'user', content: [pdf] }] }, 512)
    expect(anthropic.body).toEqual({ model: 'm', messages: [{ role: 'user' }], max_tokens: 512 })

    const video = { fileData: { fileUri: 'https://www.youtube.com/watch?v=x', mimeType: 'video/mp4' } }
    const gemini = shapeBody('gemini', 'chat', { contents: [{ role: 'user', parts: [video, { text: 'hi' }, { file_data: video.fileData, inline_data: {} }] }], system_instruction: { parts: [video] } }, 512)
    expect(gemini.body).toEqual({ contents: [{ role: 'user', parts: [{}, { text: 'hi' }, {}] }], systemInstruction: { parts: [{}] }, generationConfig: { maxOutputTokens: 512 } })
    const embed = shapeBody('gemini', 'embed', { requests: [{ model: 'models/e', content: { parts: [video, { text: 'x' }] } }] }, 512)
    expect(embed.body).toEqual({ requests: [{ model: 'models/e', content: { parts: [{}, { text: 'x' }] } }] })

    const ollama = shapeBody('ollama', 'chat', { model: 'm', messages: [{ role: 'user', content: 'hi', images: ['iVBORw0KGgo='] }] }, 512)
    expect(ollama.body.messages).toEqual([{ role: 'user', content: 'hi' }])
  })

  it("never lets a reader resize an Ollama server's context window (a model reload and a KV cache of that size)", () => {
    expect(shapeBody('ollama', 'chat', { model: 'm', options: { num_ctx: 1_048_576, temperature: 0.2, num_predict: 64 } }, 512).body).toEqual({ model: 'm', options: { temperature: 0.2, num_predict: 64 } })
    expect(shapeBody('ollama', 'embed', { model: 'e', input: ['x'], options: { num_ctx: 1_048_576 } }, 512).body).toEqual({ model: 'e', input: ['x'], options: {} })
  })

  it('embedding bodies keep their own fields and are not clamped', () => {
    const batch = { requests: [{ model: 'models/e', content: { parts: [{ text: 'x' }] }, taskType: 'RETRIEVAL_QUERY', extra: 1 }], other: 2 }
    expect(shapeBody('gemini', 'embed', batch, 512)).toEqual({ body: { requests: [{ model: 'models/e', content: { parts: [{ text: 'x' }] }, taskType: 'RETRIEVAL_QUERY' }] }, clamped: false })
    expect(shapeBody('openai', 'embed', { model: 'e', input: ['x'], n: 5 }, 512).body).toEqual({ model: 'e', input: ['x'] })
  })
})

describe("the health probe's GET", () => {
  /** OpenRouter as it is: its model list is public, its key record is not. */
  const openrouter = (goodKey: string): typeof fetch => async (input, init) => {
    const path = new URL(String(input)).pathname
    if (path.endsWith('/models')) return new Response('{"data":[]}', { status: 200 })
    const ok = new Headers(init?.headers).get('authorization') === `Bearer ${goodKey}`
    return path.endsWith('/key') && ok ? new Response('{"data":{}}', { status: 200 }) : new Response('{"error":{"code":401,"message":"User not found."}}', { status: 401 })
  }

  it('checks the key itself where the model list answers without one (OpenRouter)', async () => {
    const probe = async (key: string) => {
      const state = new MemoryState()
      const app = createProxyApp({
        env: () => ({ OPENROUTER_API_KEY: key }),
        runtime: (_c, env) => ({
          settings: parseProxySettings({ routes: [{ member: 'openrouter', chatModels: ['openrouter/free'] }], proxy: { siteOrigins: ['https://docs.example.com'] } }),
          env,
          limits: state,
          feedback: state,
          clientIp: '192.0.2.1',
        }),
        fetch: openrouter('sk-or-right'),
      })
      const health = (await (await app.request('/ai/health?probe=1')).json()) as { ok: boolean; routes: { probe: unknown }[] }
      return { ok: health.ok, probe: health.routes[0]!.probe }
    }
    expect(await probe('sk-or-revoked')).toEqual({ ok: false, probe: { status: 401, result: 'auth' } })
    expect(await probe('sk-or-right')).toEqual({ ok: true, probe: { status: 200, result: 'ok' } })
  })
})
