/**
 * Heading ids as real site generators emit them, so a citation's `#anchor`
 * lands on the heading it was cut from. Each preset mirrors one generator's
 * slug function and its duplicate rule (a repeated id gets `-1`, `-2`, ...).
 */
import GithubSlugger from 'github-slugger'
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
    case 'github':
    case 'starlight':
    case 'docusaurus': {
      // Starlight (Astro's heading ids) and Docusaurus both use github-slugger
      // on the heading's plain text; an explicit id is taken as written.
      const slugger = new GithubSlugger()
      return { slug: (text, explicitId) => explicitId ?? slugger.slug(text) }
    }
  }
}
