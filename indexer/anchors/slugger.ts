/**
 * Heading ids as real site generators emit them, so a citation's `#anchor`
 * lands on the heading it was cut from. Each preset mirrors one generator's
 * slug function and its duplicate rule (a repeated id gets `-1`, `-2`, ...).
 */
import GithubSlugger, { slug as githubSlug } from 'github-slugger'
import type { SluggerName } from '../../core/config/schema.ts'

/** One page's slugger: remembers the ids already used on that page. */
export interface PageSlugger {
  /** Id for a heading whose plain text is `text` (explicit id wins when given). */
  slug(text: string, explicitId?: string): string
}

// VitePress (@mdit-vue/shared slugify): punctuation runs become one '-',
// accents dropped, a leading digit gets '_', lower-cased.
const VP_CONTROL = /[\u0000-\u001f]/g
const VP_SPECIAL = /[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g
const VP_COMBINING = /[\u0300-\u036F]/g

export function vitepressSlugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(VP_COMBINING, '')
    .replace(VP_CONTROL, '')
    .replace(VP_SPECIAL, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase()
}

// Astro (rehype-heading-ids, used by Starlight): github-slugger, then runs of
// '-' collapsed and trimmed; non-breaking spaces count as spaces.
const NBSP = /[\u00A0\u2007\u202F]/g
const EXTRA_HYPHENS = /^-+|(?<=-)-+|-+$/g

/** `## Title {#custom-id}`: the explicit id and the text without it. */
export function parseExplicitId(text: string): { text: string; id?: string } {
  const match = /\s*\{#([^{}]+)\}\s*$/.exec(text)
  if (!match || match[1]!.trim() === '') return { text }
  return { text: text.slice(0, match.index).trimEnd(), id: match[1]!.trim() }
}

/** Appends -1, -2, ... the way markdown-it-anchor (VitePress) does. */
function uniqueAgainst(seen: Set<string>, base: string): string {
  let id = base
  for (let i = 1; seen.has(id); i++) id = `${base}-${i}`
  seen.add(id)
  return id
}

export function createPageSlugger(preset: SluggerName): PageSlugger {
  switch (preset) {
    case 'vitepress': {
      const seen = new Set<string>()
      return { slug: (text, explicitId) => uniqueAgainst(seen, explicitId ?? vitepressSlugify(text)) }
    }
    case 'starlight': {
      const slugger = new GithubSlugger()
      const seen = new Set<string>()
      return {
        slug(text, explicitId) {
          if (explicitId) return uniqueAgainst(seen, explicitId)
          const id = slugger.slug(text.replace(NBSP, ' ')).replace(EXTRA_HYPHENS, '')
          seen.add(id)
          return id
        },
      }
    }
    case 'github':
    case 'docusaurus': {
      // Docusaurus wraps github-slugger; an explicit id is kept as written
      // (maintainCase) but still counted against duplicates.
      const slugger = new GithubSlugger()
      return { slug: (text, explicitId) => (explicitId ? slugger.slug(explicitId, true) : slugger.slug(text)) }
    }
  }
}

/** Stateless slug of one heading text (no duplicate tracking). */
export function slugOnce(preset: SluggerName, text: string): string {
  if (preset === 'vitepress') return vitepressSlugify(text)
  if (preset === 'starlight') return githubSlug(text.replace(NBSP, ' ')).replace(EXTRA_HYPHENS, '')
  return githubSlug(text)
}
