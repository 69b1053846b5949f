import { describe, expect, it } from 'vitest'
import { decodedWhenRead, utf8Of } from './stored-text.ts'

const stored = (text: string) => Buffer.from(`<${text}>`).subarray(1, -1)

describe('stored text', () => {
  it('reads as the text its bytes hold, in the field\'s own place among the others', () => {
    const chunk = { id: 'a', text: 0 as unknown as string, title: 'A' }
    decodedWhenRead(chunk, 'text', stored('Größe 🚀\nline two'))
    expect(chunk.text).toBe('Größe 🚀\nline two')
    expect(JSON.stringify(chunk)).toBe(JSON.stringify({ id: 'a', text: 'Größe 🚀\nline two', title: 'A' }))
    expect({ ...chunk, id: 'b' }).toEqual({ id: 'b', text: 'Größe 🚀\nline two', title: 'A' })
  })

  it('gives back the stored bytes themselves while the field holds them, and the new text once it is assigned', () => {
    const entry = { markdown: '' }
    const bytes = stored('# Title\n')
    decodedWhenRead(entry, 'markdown', bytes)
    expect(utf8Of(entry, 'markdown')).toBe(bytes)
    void entry.markdown // reading keeps them
    expect(utf8Of(entry, 'markdown')).toBe(bytes)
    entry.markdown = '# Another title\n'
    expect(entry.markdown).toBe('# Another title\n')
    expect(Buffer.from(utf8Of(entry, 'markdown')).toString()).toBe('# Another title\n')
  })

  it('encodes a field that was never stored', () => {
    expect(Buffer.from(utf8Of({ markdown: 'ä' }, 'markdown'))).toEqual(Buffer.from('ä'))
  })
})
