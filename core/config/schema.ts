/**
 * The docpilot config schema. One schema for every entry point (CLI, proxy,
 * dev server); `validate.ts` turns its issues into messages that name the
 * file, the field and the fix. Objects are strict: an unknown key is an error.
 *
 * Each section is its own schema so an owning module can grow it without
 * touching the others.
 */
// A namespace import, as zod advises: with `import { z }` a bundle keeps every one of zod's locales
// (600 KB more that the CLI would parse at each start, scripts/build-cli.ts).
import * as z from 'zod'
import { CHAIN, isMemberId, MEMBER_IDS, providerSpec, type MemberId } from '../providers/table.ts'
import { baseUrlProblem } from './base-url.ts'
import { CHAT_DEFAULTS } from './chat-defaults.ts'
import { DEFAULT_FILE_LIMITS } from './file-limits.ts'
import { DEFAULT_INDEX_OUT } from './index-out.ts'
import { cannotEmbed, memberTwice } from './refusals.ts'

const memberId = z.enum(MEMBER_IDS as [MemberId, ...MemberId[]])

export const SLUGGERS = ['github', 'vitepress', 'starlight', 'docusaurus'] as const
export type SluggerName = (typeof SLUGGERS)[number]

/**
 * Per-file limits of `docpilot index`: counted in bytes and nesting levels, so
 * a page is skipped (with a warning naming it and the limit) the same way on
 * every machine. Defaults sit far above real docs pages (the largest page of
 * the Astro docs is 92 KB and nests 4 levels). The parse time limit is only a
 * backstop for what those two do not bound; its default is far above any real
 * page, and above a page at the byte limit on a busy machine (a 3 MB page
 * took 46 s with the load at 13 on 2 cores).
 */
export { DEFAULT_FILE_LIMITS }

export const DocsSchema = z.strictObject({
  /** Folder of Markdown/MDX sources, relative to the config file. */
  dir: z.string().min(1).optional(),
  /** A built HTML site to index instead of sources (like Pagefind). */
  site: z.string().min(1).optional(),
  include: z.array(z.string().min(1)).optional(),
  exclude: z.array(z.string().min(1)).optional(),
  /** CSS selector of the main content region in built HTML. */
  contentSelector: z.string().min(1).optional(),
  /** A page larger than this many bytes is skipped. */
  maxFileBytes: z.number().int().min(1024).default(DEFAULT_FILE_LIMITS.maxFileBytes),
  /** A page nesting deeper than this (lists and quotes in Markdown, elements in HTML) is skipped. */
  maxNesting: z.number().int().min(8).default(DEFAULT_FILE_LIMITS.maxNesting),
  /**
   * A backstop, not a limit pages are meant to meet: a page whose parse (in a worker thread) runs longer than
   * this is skipped. Far above any real page; it bounds hostile input the byte and nesting limits do not.
   */
  parseTimeoutMs: z.number().int().min(1000).default(DEFAULT_FILE_LIMITS.parseTimeoutMs),
})

export const AnchorsSchema = z.strictObject({
  slugger: z.enum(SLUGGERS).default('github'),
})

export const UrlsSchema = z.strictObject({
  /** Prefix every URL gets, e.g. '/docs/'. */
  base: z
    .string()
    // 'docs' linked pages as /docs/... but left the agent files nowhere to go: the index failed at its last step.
    .refine((v) => v.startsWith('/') || /^https?:\/\//i.test(v), "expected a path from the site's root such as '/docs/', or a full URL such as 'https://docs.example.com/docs/'")
    .default('/'),
  /** Source path prefix removed before mapping, e.g. 'src/content/docs/en/'. */
  stripPrefix: z.string().default(''),
  /** Drop `.md`/`.mdx`/`.html` from URLs. */
  stripExtension: z.boolean().default(true),
  /** `guide/index.md` maps to `guide/`. */
  collapseIndex: z.boolean().default(true),
  trailingSlash: z.boolean().default(false),
})

export const ChunksSchema = z
  .strictObject({
    maxWords: z.number().int().min(50).max(2000).default(220),
    overlapWords: z.number().int().min(0).max(500).default(40),
  })
  .superRefine(
    (chunks, ctx) => {
      // The indexer would quietly cut the overlap to maxWords - 1: windows one word apart, dozens of times the chunks.
      if (chunks.overlapWords >= chunks.maxWords) {
        ctx.addIssue({
          code: 'custom',
          path: ['overlapWords'],
          message: `must be less than chunks.maxWords (${chunks.maxWords}): each window repeats this many words of the one before`,
        })
      }
    },
    // Only once both numbers are valid: a maxWords of 10 is its own mistake, not a second one about the overlap.
    { when: (payload) => payload.issues.length === 0 },
  )

const chainEntry = z.union([
  memberId,
  z
    .strictObject({
      provider: memberId,
      model: z.string().min(1).optional(),
      models: z.array(z.string().min(1)).min(1).optional(),
      baseURL: z.string().url().optional(),
    })
    .superRefine((entry, ctx) => {
      const problem = entry.baseURL ? baseUrlProblem(entry.provider, entry.baseURL) : undefined
      // Never shown: the value may hold a credential.
      if (problem) ctx.addIssue({ code: 'custom', path: ['baseURL'], message: problem, params: { showValue: false } })
    }),
])
export type ChainEntry = z.infer<typeof chainEntry>

/**
 * A chain names each member once (a member is tried at most once per turn). Checked here, not
 * only when the chain is resolved, so the message names the config file and every command
 * refuses the config before it runs, as it does any other mistake.
 */
function eachMemberOnce(entries: ChainEntry[], ctx: z.RefinementCtx): void {
  const seen = new Set<MemberId>()
  entries.forEach((entry, i) => {
    const provider = typeof entry === 'string' ? entry : entry.provider
    if (seen.has(provider)) {
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message: memberTwice(provider),
        // The message names the value already.
        params: { showValue: false },
      })
    }
    seen.add(provider)
  })
}

export const ChatSchema = z.strictObject({
  provider: memberId.optional(),
  model: z.string().min(1).optional(),
  models: z.array(z.string().min(1)).min(1).optional(),
  /** false: one provider chosen once. 'auto': every member the environment holds. An array: walked as written. */
  chain: z
    .union([z.literal(false), z.literal('auto'), z.array(chainEntry).min(1).superRefine(eachMemberOnce)])
    .describe("false, 'auto' or an array of providers")
    .default(false),
  /** Override the explicit free-pool ids that follow `openrouter/free` when `model: 'free'`. */
  freeModels: z.array(z.string().min(1)).min(1).optional(),
  maxTokens: z.number().int().min(1).max(32_000).default(CHAT_DEFAULTS.maxTokens),
  temperature: z.number().min(0).max(2).default(CHAT_DEFAULTS.temperature),
  /** Per-member limits: to the first byte, and between deltas. */
  timeouts: z
    .strictObject({
      firstByteMs: z.number().int().min(100).default(CHAT_DEFAULTS.timeouts.firstByteMs),
      idleMs: z.number().int().min(100).default(CHAT_DEFAULTS.timeouts.idleMs),
    })
    .prefault({}),
})

type EmbedChoice = false | string | { model: string } | { provider: MemberId; model?: string | undefined }

function embedderExists(embed: EmbedChoice, ctx: z.RefinementCtx): void {
  const [provider, model, path] =
    typeof embed === 'string' && isMemberId(embed) ? [embed, undefined, []] : typeof embed === 'object' && 'provider' in embed ? [embed.provider, embed.model, ['provider']] : []
  const why = provider && cannotEmbed(provider, model)
  // The message names the value already.
  if (why) ctx.addIssue({ code: 'custom', path, message: why, params: { showValue: false } })
}

/** `{ model: 'hf:…' }` would be read as a folder named 'hf:…' in the config's folder: a hub model is the string form. */
function folderNotHubId(embed: EmbedChoice, ctx: z.RefinementCtx): void {
  if (typeof embed !== 'object' || !embed || 'provider' in embed || !embed.model.startsWith('hf:')) return
  ctx.addIssue({ code: 'custom', path: ['model'], message: `'${embed.model}' is a Hugging Face id, and { model } names a local folder: write embed: '${embed.model}' (the string form)`, params: { showValue: false } })
}

/**
 * The one embedder of an index. false declares lexical-only; 'auto' follows
 * the chat chain's head when it embeds, else the offline default.
 */
export const EmbedSchema = z
  .union([
    z.literal(false),
    z.literal('auto'),
    z.literal('default'),
    z.string().regex(/^hf:[\w.-]+\/[\w.-]+$/, "expected 'hf:<org>/<name>'"),
    memberId,
    z.strictObject({ model: z.string().min(1) }),
    z.strictObject({ provider: memberId, model: z.string().min(1).optional() }),
  ])
  .superRefine(embedderExists)
  .superRefine(folderNotHubId)
  .describe("'auto', 'default', false, a provider id (e.g. 'openai'), { provider, model }, { model: '<folder>' } (a local model folder) or 'hf:<org>/<name>'")

export const BudgetSchema = z.strictObject({
  /** One ceiling of requests per day for the whole chain. */
  dailyLimit: z.number().int().min(1).optional(),
})

/** The refusal gate; anything left out comes from the settings tuned for the index's embedder (core/retrieval/tuning.ts). */
export const GateSchema = z.strictObject({
  threshold: z.number().min(0).max(1).optional(),
  lexicalThreshold: z.number().min(0).max(1).optional(),
  /** Refuse when less than this share of the question's (rarity-weighted) words occurs in the docs; 0 turns it off. */
  vocabularyFloor: z.number().min(0).max(1).optional(),
  /** Refuse when the passages matching the question hold less than this share of the names it gives (1: all); 0 turns it off. */
  subjectFloor: z.number().min(0).max(1).optional(),
})

/**
 * An http(s) origin: scheme, host and optional port, nothing after. Kept as
 * the browser's Origin header spells it, so `https://Docs.Example.com:443/`
 * (no path, only spelt differently) is accepted as `https://docs.example.com`.
 */
const origin = z
  .string()
  .refine((v) => {
    const url = URL.parse(v)
    return (
      url !== null &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !url.username &&
      !url.password &&
      url.pathname === '/' &&
      !/[?#]/.test(v)
    )
  }, 'expected an origin such as https://docs.example.com (scheme and host, no path)')
  .transform((v) => URL.parse(v)!.origin)

const ORIGINS = "a list of origins such as ['https://docs.example.com']"

/** A client's token bucket on the proxy (proxy/limits.ts): refilled at perMinute, holding at most burst. */
function rateLimit(defaults: { perMinute: number; burst: number }) {
  return z
    .strictObject({
      perMinute: z.number().int().min(1).default(defaults.perMinute),
      burst: z.number().int().min(1).default(defaults.burst),
    })
    .prefault({})
}

export const ProxySchema = z.strictObject({
  /**
   * The site's own origin(s), with scheme: the pages allowed to call /ai/...
   * without CORS. The proxy refuses to start without one (`dev` and `preview`
   * fill in their own loopback address).
   */
  siteOrigins: z.array(origin).describe(ORIGINS).default([]),
  /** Other sites' origins allowed to call /ai/... (answered with CORS headers). */
  allowedOrigins: z.array(origin).describe(ORIGINS).default([]),
  maxBodyBytes: z.number().int().min(1024).max(1_048_576).default(65_536),
  maxTokens: z.number().int().min(1).max(32_000).default(2048),
  rateLimit: rateLimit({ perMinute: 20, burst: 10 }),
})

export const FeedbackSchema = z.strictObject({
  /**
   * The one switch for readers' words, off by default: store the question,
   * answer and comment text with a rating, and the question with each
   * insights event. Off, only measurements and section ids are stored.
   */
  storeText: z.boolean().default(false),
  /**
   * The panel sends a rating with the question and answer text whatever
   * storeText says (the proxy drops them unstored), so the default fits a
   * pasted question the panel accepts and a long answer, in any script.
   */
  maxBytes: z.number().int().min(256).max(65_536).default(65_536),
})

export const DEFAULT_INSIGHTS = { enabled: false, retentionDays: 90 } as const

/**
 * Owner insights: one small record per settled turn, sent by the panel to the
 * site's own proxy and stored next to feedback (`docpilot insights` reports
 * it). Off by default; question text only under feedback.storeText.
 */
export const InsightsSchema = z.strictObject({
  enabled: z.boolean().default(DEFAULT_INSIGHTS.enabled),
  /** Events older than this many days are deleted by the proxy as it stores new ones. */
  retentionDays: z.number().int().min(1).max(3650).default(DEFAULT_INSIGHTS.retentionDays),
})

/** What the panel offers readers beyond answers. */
export const PanelSchema = z.strictObject({
  /**
   * Questions the empty panel suggests (at most 4). Absent: derived from the
   * docs' headings at index time. false: none.
   */
  suggestions: z
    .union([z.literal(false), z.array(z.string().trim().min(1).max(200)).max(4)])
    .describe('false or a list of up to 4 questions')
    .optional(),
})

/** The files for agents `docpilot index` writes next to the site: llms.txt, llms-full.txt, a Markdown copy of each page. */
export const LlmsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** The site's output folder, served at urls.base (default .docpilot/site, to copy into the site). */
  siteOut: z.string().min(1).optional(),
  /** The H1 of llms.txt (default: the home page's title). */
  title: z.string().min(1).optional(),
})

/** The MCP server on the proxy's /ai/mcp route (docs/agents.md). */
export const McpSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Where the Worker fetches the index from: a path on the site's own origin, or an absolute URL. */
  indexUrl: z.string().min(1).default('/docpilot/'),
  /** Where llms.txt and the page copies are served (default urls.base). */
  siteUrl: z.string().min(1).optional(),
  /**
   * Each client's bucket for /ai/mcp and the hosted embeddings its searches
   * make, apart from the chat bucket (proxy.rateLimit): an agent connects with
   * two requests and asks in quick runs, and must not spend readers' answers.
   */
  rateLimit: rateLimit({ perMinute: 60, burst: 30 }),
})

export const ConfigSchema = z.strictObject({
  docs: DocsSchema.prefault({}),
  /** Output folder of `docpilot index`. */
  out: z.string().min(1).default(DEFAULT_INDEX_OUT),
  anchors: AnchorsSchema.prefault({}),
  urls: UrlsSchema.prefault({}),
  chunks: ChunksSchema.prefault({}),
  embed: EmbedSchema.default('auto'),
  chat: ChatSchema.prefault({}),
  budget: BudgetSchema.default({}),
  gate: GateSchema.default({}),
  proxy: ProxySchema.prefault({}),
  feedback: FeedbackSchema.prefault({}),
  insights: InsightsSchema.prefault({}),
  panel: PanelSchema.default({}),
  llms: LlmsSchema.default({ enabled: true }),
  mcp: McpSchema.prefault({}),
})

/** What an owner writes (every field optional). */
export type DocpilotConfigInput = z.input<typeof ConfigSchema>
/** What the code reads (defaults filled in). */
export type DocpilotConfig = z.output<typeof ConfigSchema>
export type ChatConfig = DocpilotConfig['chat']
export type EmbedConfig = DocpilotConfig['embed']
