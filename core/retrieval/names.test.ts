import { describe, expect, it } from 'vitest'
import { namesIn } from './names.ts'

const names = (q: string) => [...namesIn(q)]

describe('namesIn', () => {
  it('takes the words written with a capital inside a sentence: tools, products, APIs', () => {
    expect(names("How do I configure Angular's dependency injection providers?")).toEqual(['Angular'])
    expect(names("How do I use SwiftUI's NavigationStack for programmatic navigation?")).toEqual(['SwiftUI', 'NavigationStack'])
    expect(names('Can I read a cookie with getSignedCookie in Hono?')).toEqual(['getSignedCookie', 'Hono'])
  })

  it("leaves out a sentence's first word, the pronoun I, and words that start with a digit", () => {
    expect(names('Webpack builds fail. Why does Vite not?')).toEqual(['Vite'])
    expect(names('Will Bun serve 128MB bodies? I get a 404 from Bun.')).toEqual(['Bun'])
    expect(names('Error: Cannot find module')).toEqual([])
  })

  it('finds none in a question written in title case or capitals throughout', () => {
    expect(names('How To Configure Dependency Injection Providers In Angular')).toEqual([])
    expect(names('HOW DO I ENABLE HTTP3 ON NGINX')).toEqual([])
  })

  it('reads a sentence end between words as the whole text before each word did, on text of every shape', () => {
    // The rule as first written: the text before the word, all of it.
    const SENTENCE_END = /[.?!:]\s*["'“‘(\[]*\s*$/u
    const reference = (q: string) => {
      const inside = [...q.matchAll(/[\p{L}\p{N}]+/gu)].filter((m) => m[0].length > 1 && !(q.slice(0, m.index).trim() === '' || SENTENCE_END.test(q.slice(0, m.index))))
      const capitalised = inside.filter((m) => /\p{Lu}/u.test(m[0]))
      return capitalised.length > 0.5 * inside.length ? [] : [...new Set(capitalised.map((m) => m[0]).filter((w) => !/^\p{N}/u.test(w)))]
    }
    const pieces = ['Hono', 'cookie', 'SwiftUI', 'I', 'a', '404', ' ', '  ', '. ', '? ', '!', ': "', "'", '(', '[', '“', '\n', '-', '¿', 'é', 'Éclair']
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % pieces.length
    for (let n = 0; n < 400; n++) {
      const q = Array.from({ length: 1 + (n % 25) }, () => pieces[next()]).join('')
      expect(names(q), JSON.stringify(q)).toEqual(reference(q))
    }
  })
})
