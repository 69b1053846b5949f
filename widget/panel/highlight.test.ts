import { describe, expect, it } from 'vitest'
import { DEFAULT_LEXICAL_SETTINGS } from '../../core/retrieval/lexical.ts'
import { noMarks, termMarker } from './highlight.ts'

describe('termMarker', () => {
  const mark = (q: string, text: string) => termMarker(q, DEFAULT_LEXICAL_SETTINGS)(text)

  it('marks the words the index matched: stems, identifier parts, long prefixes; never stop words', () => {
    expect(mark('How do I set cookies?', 'Use setCookie() to set a cookie on the response.')).toEqual([
      'Use ',
      { mark: 'setCookie' },
      '() to ',
      { mark: 'set' },
      ' a ',
      { mark: 'cookie' },
      ' on the response.',
    ])
    expect(mark('deploying', 'Deploy, deployed and deploys')).toEqual([{ mark: 'Deploy' }, ', ', { mark: 'deployed' }, ' and ', { mark: 'deploys' }])
    expect(mark('cookies', 'cook a cookie')).toEqual(['cook a ', { mark: 'cookie' }])
    expect(mark('what is the', 'What is the answer')).toEqual(['What is the answer'])
  })

  it('leaves the text whole when it has nothing to mark or no settings', () => {
    expect(mark('zebra', 'No match here.')).toEqual(['No match here.'])
    expect(termMarker('cookie', undefined)('a cookie')).toEqual(['a cookie'])
    expect(noMarks('x')).toEqual(['x'])
  })
})
