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
})
