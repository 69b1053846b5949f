import { describe, expect, it } from 'vitest'
import { closestKey, ConfigError, editDistance, validateConfig } from './validate.ts'

function problems(input: unknown): string[] {
  try {
    validateConfig(input, 'docpilot.config.ts')
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message.split('\n')
  }
  throw new Error('expected the config to be rejected')
}

describe('validateConfig', () => {
  it('fills defaults for an empty config', () => {
    const c = validateConfig({}, 'docpilot.config.ts')
    expect(c.chat.chain).toBe(false)
    expect(c.out).toBe('.docpilot/index')
  })

  it('gives an absent section the defaults its fields declare, as an empty one gets', () => {
    const empty = { docs: {}, anchors: {}, urls: {}, chunks: {}, chat: { timeouts: {} }, proxy: { rateLimit: {} }, feedback: {}, insights: {} }
    expect(validateConfig({}, 'docpilot.config.ts')).toEqual(validateConfig(empty, 'docpilot.config.ts'))
  })

  it('names file, field path and what the field must be', () => {
    expect(problems({ chat: { chain: 'yes' } })).toEqual([
      `Invalid config docpilot.config.ts: chat.chain must be false, 'auto' or an array of providers (got "yes")`,
    ])
  })

  it('says what a number field takes, whole or not and its bounds, for a value of the wrong type', () => {
    expect(problems({ budget: { dailyLimit: '100' } })).toEqual(['Invalid config docpilot.config.ts: budget.dailyLimit must be a whole number of at least 1 (got "100")'])
    expect(problems({ insights: { retentionDays: '90' } })).toEqual(['Invalid config docpilot.config.ts: insights.retentionDays must be a whole number from 1 to 3650 (got "90")'])
  })

  it("describes a transformed field by what the owner writes, not by zod's word for it", () => {
    expect(problems({ proxy: { siteOrigins: 'https://docs.example.com' } })).toEqual([
      `Invalid config docpilot.config.ts: proxy.siteOrigins must be a list of origins such as ['https://docs.example.com'] (got "https://docs.example.com")`,
    ])
    expect(problems({ proxy: { allowedOrigins: [5] } })).toEqual(['Invalid config docpilot.config.ts: proxy.allowedOrigins[0] must be a string (got 5)'])
  })

  it('asks urls.base for a path from the root or a full URL, and takes both', () => {
    expect(problems({ urls: { base: 'docs' } })).toEqual([
      `Invalid config docpilot.config.ts: urls.base: expected a path from the site's root such as '/docs/', or a full URL such as 'https://docs.example.com/docs/' (got "docs")`,
    ])
    expect(validateConfig({ urls: { base: '/docs/' } }, 'x').urls.base).toBe('/docs/')
    expect(validateConfig({ urls: { base: 'https://docs.example.com/docs/' } }, 'x').urls.base).toBe('https://docs.example.com/docs/')
  })

  it('turns an unknown key into "did you mean" when a known key is close', () => {
    expect(problems({ chat: { chian: 'auto' } })).toEqual(['Invalid config docpilot.config.ts: chat.chian is not a known setting; did you mean chat.chain?'])
    expect(problems({ docz: {} })).toEqual(['Invalid config docpilot.config.ts: docz is not a known setting; did you mean docs?'])
  })

  it("lists every form embed takes, and suggests the nearest word for a typo; a malformed 'hf:' keeps its own message", () => {
    const forms = "'auto', 'default', false, a provider id (e.g. 'openai'), { provider, model }, { model: '<folder>' } (a local model folder) or 'hf:<org>/<name>'"
    expect(problems({ embed: 'defualt' })).toEqual([`Invalid config docpilot.config.ts: embed must be ${forms} (got "defualt"); did you mean 'default'?`])
    expect(problems({ embed: 'opnai' })).toEqual([`Invalid config docpilot.config.ts: embed must be ${forms} (got "opnai"); did you mean 'openai'?`])
    expect(problems({ embed: 'xyzzy' })).toEqual([`Invalid config docpilot.config.ts: embed must be ${forms} (got "xyzzy")`])
    expect(problems({ embed: 12 })).toEqual([`Invalid config docpilot.config.ts: embed must be ${forms} (got 12)`])
    expect(problems({ embed: 'hf:no-name' })).toEqual([`Invalid config docpilot.config.ts: embed must be 'hf:<org>/<name>' (got "hf:no-name")`])
    expect(problems({ embed: { model: 'hf:Xenova/all-MiniLM-L6-v2' } })).toEqual([
      "Invalid config docpilot.config.ts: embed.model: 'hf:Xenova/all-MiniLM-L6-v2' is a Hugging Face id, and { model } names a local folder: write embed: 'hf:Xenova/all-MiniLM-L6-v2' (the string form)",
    ])
    expect(problems({ chat: { chain: 'atuo' } })).toEqual([`Invalid config docpilot.config.ts: chat.chain must be false, 'auto' or an array of providers (got "atuo"); did you mean 'auto'?`])
  })

  it('names the section a setting belongs to when it is written in another one', () => {
    expect(problems({ proxy: { dailyLimit: 100 } })).toEqual(['Invalid config docpilot.config.ts: proxy.dailyLimit is not a known setting; did you mean budget.dailyLimit?'])
    expect(problems({ slugger: 'vitepress' })).toEqual(['Invalid config docpilot.config.ts: slugger is not a known setting; did you mean anchors.slugger?'])
    expect(problems({ maxTokens: 500 })).toEqual(['Invalid config docpilot.config.ts: maxTokens is not a known setting; did you mean chat.maxTokens or proxy.maxTokens?'])
  })

  it("says a top-level widget section is not where the widget's options go, rather than guessing budget", () => {
    expect(problems({ widget: { theme: 'dark' } })).toEqual([
      "Invalid config docpilot.config.ts: widget is not a setting of the config file: the widget's options are its script tag's data- attributes (widget.md in docpilot's docs); its suggested questions are panel.suggestions",
    ])
  })

  it('refuses an overlap of chunks.maxWords or more, which the indexer could only cut down', () => {
    expect(problems({ chunks: { overlapWords: 500 } })).toEqual([
      'Invalid config docpilot.config.ts: chunks.overlapWords: must be less than chunks.maxWords (220): each window repeats this many words of the one before (got 500)',
    ])
    expect(problems({ chunks: { maxWords: 60, overlapWords: 60 } })).toHaveLength(1)
    expect(validateConfig({ chunks: { maxWords: 60, overlapWords: 59 } }, 'x').chunks).toEqual({ maxWords: 60, overlapWords: 59 })
  })

  it('lists the known keys when nothing is close', () => {
    const [line] = problems({ zzzzzz: 1 })
    expect(line).toMatch(/zzzzzz is not a known setting; remove it \(top-level settings are: docs, out, anchors/)
  })

  it('reaches into a union branch for the field that is actually wrong', () => {
    expect(problems({ chat: { chain: [{ provider: 'openai', modle: 'gpt' }] } })).toEqual([
      'Invalid config docpilot.config.ts: chat.chain[0].modle is not a known setting; did you mean chat.chain[0].model?',
    ])
    expect(problems({ chat: { chain: [{ provider: 'openai', baseURL: 'nope' }] } })[0]).toContain('chat.chain[0].baseURL must be a full URL')
  })

  it('explains enums, ranges, whole numbers, empty strings and wrong types', () => {
    const lines = problems({
      anchors: { slugger: 'gh' },
      chunks: { maxWords: 10 },
      chat: { maxTokens: 1.5 },
      docs: { include: [''] },
      urls: { base: 3 },
    })
    expect(lines).toEqual(
      expect.arrayContaining([
        `Invalid config docpilot.config.ts: anchors.slugger must be one of 'github', 'vitepress', 'starlight' or 'docusaurus' (got "gh")`,
        'Invalid config docpilot.config.ts: chunks.maxWords must be at least 50 (got 10)',
        'Invalid config docpilot.config.ts: chat.maxTokens must be a whole number (got 1.5)',
        'Invalid config docpilot.config.ts: docs.include[0] must not be empty (got "")',
        'Invalid config docpilot.config.ts: urls.base must be a string (got 3)',
      ]),
    )
    expect(lines).toHaveLength(5)
  })

  it('names panel.suggestions and what it takes: false or up to four questions', () => {
    expect(problems({ panel: { suggestions: ['a', 'b', 'c', 'd', 'e'] } })).toEqual([
      'Invalid config docpilot.config.ts: panel.suggestions must be false or a list of up to 4 questions (got ["a","b","c","d","e"])',
    ])
    expect(problems({ panel: { suggestions: ['  '] } })).toEqual(['Invalid config docpilot.config.ts: panel.suggestions[0] must not be empty (got "  ")'])
    expect(validateConfig({ panel: { suggestions: [' Why? '] } }, 'docpilot.config.ts').panel.suggestions).toEqual(['Why?'])
  })

  it('takes a site origin spelt otherwise than the browser sends it (capitals, the default port, a slash) as that origin, and refuses one with more', () => {
    const proxy = validateConfig({ proxy: { siteOrigins: ['https://Docs.Example.com:443/'], allowedOrigins: ['HTTP://localhost:3000'] } }, 'docpilot.config.ts').proxy
    expect(proxy.siteOrigins).toEqual(['https://docs.example.com'])
    expect(proxy.allowedOrigins).toEqual(['http://localhost:3000'])
    for (const bad of ['https://docs.example.com/docs/', 'https://docs.example.com/?a', 'https://user:pw@docs.example.com', 'docs.example.com', 'ftp://docs.example.com']) {
      expect(problems({ proxy: { siteOrigins: [bad] } })).toEqual([
        `Invalid config docpilot.config.ts: proxy.siteOrigins[0]: expected an origin such as https://docs.example.com (scheme and host, no path) (got "${bad}")`,
      ])
    }
  })

  it('refuses a chain that names a member twice, naming the file and the entry, as it does any other mistake', () => {
    expect(problems({ chat: { chain: ['openai', 'groq', { provider: 'openai', model: 'gpt-4o' }] } })).toEqual([
      'Invalid config docpilot.config.ts: chat.chain[2]: "openai" appears twice; each member is tried at most once per turn, so list it once (put several models in its "models")',
    ])
    expect(validateConfig({ chat: { chain: ['openai', 'groq'] } }, 'docpilot.config.ts').chat.chain).toEqual(['openai', 'groq'])
  })

  it('refuses an embedder the provider cannot be, naming the field and what to write instead', () => {
    const instead = "embed with one that has (openai, gemini, mistral, together, custom or ollama), 'default' (the offline model) or false (search by words alone)"
    expect(problems({ embed: 'groq' })).toEqual([`Invalid config docpilot.config.ts: embed: "groq" has no embeddings API; ${instead}`])
    expect(problems({ embed: { provider: 'anthropic', model: 'x' } })).toEqual([`Invalid config docpilot.config.ts: embed.provider: "anthropic" has no embeddings API; ${instead}`])
    expect(problems({ embed: 'custom' })).toEqual([
      `Invalid config docpilot.config.ts: embed: "custom" has no default embedding model; name the one your server serves: embed: { provider: 'custom', model: '<model>' }`,
    ])
    expect(validateConfig({ embed: { provider: 'custom', model: 'bge-m3' } }, 'docpilot.config.ts').embed).toEqual({ provider: 'custom', model: 'bge-m3' })
    expect(validateConfig({ embed: 'openai' }, 'docpilot.config.ts').embed).toBe('openai')
  })

  it("refuses a chain entry's baseURL holding a user name or password, naming the entry and the key variable, never the value", () => {
    const c = { chat: { chain: [{ provider: 'custom', baseURL: 'https://admin:s3cret-pw@llm.internal/v1' }] } }
    expect(problems(c)).toEqual([
      'Invalid config docpilot.config.ts: chat.chain[0].baseURL: holds a user name or password, which fetch will not send from a URL: remove it, and put the key in DOCPILOT_CUSTOM_KEY',
    ])
    expect(validateConfig({ chat: { chain: [{ provider: 'custom', baseURL: 'https://llm.internal/v1' }] } }, 'docpilot.config.ts').chat.chain).toEqual([{ provider: 'custom', baseURL: 'https://llm.internal/v1' }])
  })

  it("refuses a chain entry's baseURL holding a query or fragment: the path is appended after it, and a key there is none the proxy redacts", () => {
    for (const bad of ['https://gw.example/v1?api-key=s3cret-key', 'https://gw.example/v1#token', 'https://gw.example/v1?']) {
      expect(problems({ chat: { chain: [{ provider: 'custom', baseURL: bad }] } })).toEqual([
        "Invalid config docpilot.config.ts: chat.chain[0].baseURL: holds a query or a fragment (from ? or #), which the request's path would be appended to: end it at the path, and put a key in DOCPILOT_CUSTOM_KEY",
      ])
    }
  })

  it("refuses a chain entry's baseURL that is not http(s) (Ollama's own OLLAMA_HOST is written without one), with an example, as its variable is refused", () => {
    for (const bad of ['localhost:11434', 'ftp://10.0.0.5/api', 'javascript:alert(1)']) {
      expect(problems({ chat: { chain: [{ provider: 'ollama', baseURL: bad }] } })).toEqual([
        'Invalid config docpilot.config.ts: chat.chain[0].baseURL: is not an http(s) URL; write it with its scheme, e.g. http://127.0.0.1:11434',
      ])
    }
  })

  it('rejects a file that exports something other than an object', () => {
    expect(problems(5)).toEqual(['Invalid config docpilot.config.ts: the file must export a config object (got 5)'])
  })
})

describe('did-you-mean distance', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('chian', 'chain')).toBe(1)
    expect(editDistance('kitten', 'sitting')).toBe(3)
  })
  it('suggests only close keys', () => {
    expect(closestKey('prxy', ['proxy', 'docs'])).toBe('proxy')
    expect(closestKey('Docs', ['proxy', 'docs'])).toBe('docs')
    expect(closestKey('banana', ['proxy', 'docs'])).toBeUndefined()
  })
})
