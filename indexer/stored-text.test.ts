import { describe, expect, it } from 'vitest'
import { decodedWhenRead, utf8Of } from './stored-text.ts'

/** A field's text as a journal holds it: inside other bytes. */
const stored = (text: string): [Buffer, number, number] => [Buffer.from(`<${text}>`), 1, Buffer.byteLength(text) + 1]

describe('stored text', () => {
  it('reads as the text its bytes hold, in the field\'s own place among the others', () => {
    const chunk = { id: 'a', text: 0 as unknown as string, title: 'A' }
    decodedWhenRead(chunk, 'text', ...stored('Größe 🚀\nline two'))
    expect(chunk.text).toBe('Größe 🚀\nline two')
    expect(JSON.stringify(chunk)).toBe(JSON.stringify({ id: 'a', text: 'Größe 🚀\nline two', title: 'A' }))
    expect({ ...chunk, id: 'b' }).toEqual({ id: 'b', text: 'Größe 🚀\nline two', title: 'A' })
  })

  it('gives back the stored bytes themselves while the field holds them, and the new text once it is assigned', () => {
    const entry = { markdown: '' }
    const [raw, start, end] = stored('# Title\n')
    decodedWhenRead(entry, 'markdown', raw, start, end)
    expect(utf8Of(entry, 'markdown')).toEqual(Buffer.from('# Title\n'))
    expect(utf8Of(entry, 'markdown').buffer).toBe(raw.buffer)
    void entry.markdown // reading keeps them
    expect(utf8Of(entry, 'markdown').buffer).toBe(raw.buffer)
    entry.markdown = '# Another title\n'
    expect(entry.markdown).toBe('# Another title\n')
    expect(Buffer.from(utf8Of(entry, 'markdown')).toString()).toBe('# Another title\n')
  })

  it('encodes a field that was never stored', () => {
    expect(Buffer.from(utf8Of({ markdown: 'ä' }, 'markdown'))).toEqual(Buffer.from('ä'))
  })

  it("adds a field the object lacks after its other fields, with the same accessor for every object (one hidden class), the bytes kept until a text is assigned", () => {
    const raw = Buffer.from('[Größe 🚀][second]')
    const a = decodedWhenRead({ id: 'a', trail: ['A'] }, 'text', raw, 1, Buffer.byteLength('[Größe 🚀'))
    const b = decodedWhenRead({ id: 'b', trail: [] }, 'text', raw, raw.indexOf('[second]') + 1, raw.length - 1)
    expect(Object.keys(a)).toEqual(['id', 'trail', 'text'])
    expect(Object.getOwnPropertyDescriptor(a, 'text')!.get).toBe(Object.getOwnPropertyDescriptor(b, 'text')!.get)
    expect(utf8Of(b, 'text')).toEqual(Buffer.from('second'))
    expect(utf8Of(b, 'text').buffer).toBe(raw.buffer)
    expect(a.text).toBe('Größe 🚀')
    expect(JSON.stringify(a)).toBe(JSON.stringify({ id: 'a', trail: ['A'], text: 'Größe 🚀' }))
    expect({ ...b, id: 'c' }).toEqual({ id: 'c', trail: [], text: 'second' })
    expect(utf8Of(a, 'text').buffer).toBe(raw.buffer)
    a.text = 'new'
    expect(a.text).toBe('new')
    expect(b.text).toBe('second')
    expect(Buffer.from(utf8Of(a, 'text')).toString()).toBe('new')
  })
})
