import { describe, expect, it } from 'vitest'
import { gate, type GateConfig } from '../retrieval/gate.ts'
import type { SearchResult } from '../retrieval/search.ts'
import { pageUrlFor, passagesText, searchDocsOutput } from './docs-server.ts'

const config: GateConfig = {
  vocabularyFloor: 0.6,
  subjectFloor: 1,
  threshold: 0.3,
  lexicalThreshold: 0.3,
  weights: { cooccurrence: 0.5, meaning: 0.5 },
  meaningFrom: 'results',
}

function searched(signals: Parameters<typeof gate>[0]): SearchResult {
  return { mode: 'hybrid', degraded: false, gate: gate(signals, config), results: [] }
}

describe('search_docs verdict', () => {
  it("tells an agent which floor refused the question, not a score it never compared", () => {
    const subject = passagesText(searchDocsOutput(searched({ vocabulary: 1, subject: 0, cooccurrence: 0.9, meaning: 0.9 })))
    expect(subject).toContain('the question names something no passage matching it mentions')
    expect(subject).not.toContain('below the threshold')

    const vocabulary = passagesText(searchDocsOutput(searched({ vocabulary: 0.1, cooccurrence: 0, meaning: 0 })))
    expect(vocabulary).toContain("the docs hardly use the question's words")
  })

  it('says a low evidence score refused a question whose words and names the docs hold', () => {
    const out = searchDocsOutput(searched({ vocabulary: 1, subject: 1, cooccurrence: 0.1, meaning: 0.1 }))
    expect(out.gate).toMatchObject({ pass: false, refusedFor: 'evidence' })
    expect(passagesText(out)).toContain('the evidence scored below the threshold')
  })

  it('carries no refusal reason when the gate passed', () => {
    const out = searchDocsOutput(searched({ vocabulary: 1, subject: 1, cooccurrence: 0.9, meaning: 0.9 }))
    expect(out.gate).toEqual({ pass: true, score: out.gate.score })
    expect(passagesText(out)).toMatch(/^The docs cover this/)
  })
})

describe('get_page on a site whose files are served from another host (mcp.siteUrl absolute)', () => {
  const site = { siteUrl: 'https://cdn.example/', urlOfPath: (p: string) => `/${p.replace(/\.md$/, '')}`, citeUrl: (u: string) => new URL(u, 'https://docs.example').href }

  it("takes back a link search_docs cited on the site's origin, by its path", () => {
    expect(pageUrlFor(site, 'https://docs.example/docs/helpers/cookie#signed-cookies')).toBe('/docs/helpers/cookie')
  })

  it('keeps any other absolute URL whole, so only files under the site URL are read', () => {
    expect(pageUrlFor(site, 'https://elsewhere.example/docs/x')).toBe('https://elsewhere.example/docs/x')
    expect(pageUrlFor({ ...site, citeUrl: undefined }, 'https://docs.example/docs/x')).toBe('https://docs.example/docs/x')
  })
})
