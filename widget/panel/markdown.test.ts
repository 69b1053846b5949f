import { describe, expect, it } from 'vitest'
import { answerMarked } from './markdown.ts'

const cookies = { url: '/guide/cookies', anchor: 'signed-cookies', title: 'Cookies', trail: ['Cookies', 'Signed cookies'] }
const deploy = { url: '/deploy', anchor: '', title: 'Deploy & "ship"', trail: [] }

describe('citation links', () => {
  it('are named for a screen reader by the source number and the section they open, not by "[n]" alone', () => {
    const html = answerMarked([cookies, deploy]).parse('Sign it [1][2], or not [3].') as string
    const links = [...html.matchAll(/<a class="dp-cite"[^>]*>/g)].map((m) => m[0])
    expect(links).toHaveLength(2)
    expect(links[0]).toContain('href="/guide/cookies#signed-cookies"')
    expect(links[0]).toContain('aria-label="Source 1: Cookies › Signed cookies"')
    // The label is escaped like the rest of the attribute values.
    expect(links[1]).toContain('aria-label="Source 2: Deploy &#38; &#34;ship&#34;"')
    // A number with no passage stays text.
    expect(html).toContain('or not [3].')
  })
})
