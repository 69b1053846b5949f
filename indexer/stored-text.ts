/**
 * Text fields kept as the UTF-8 bytes they were stored as, decoded only when
 * read. A re-index takes most pages from the page cache (page-cache.ts):
 * an unchanged page's Markdown copy goes into the agent files as the bytes
 * it was stored as (utf8Of), never decoded, nor encoded again, and of its
 * chunks' texts the run reads only those of the chunks whose part it writes
 * again. On astro that is 2.9 MB of Markdown copies and 4,000 chunk texts
 * (2.5 MB) a re-index no longer decodes, nor collects.
 *
 * A field made by decodedWhenRead is an accessor of its own object, which
 * gives the object a hidden class of its own: fit for a few hundred page
 * entries. Chunks are thousands, read on hot paths: textWhenRead gives every
 * chunk the same accessor functions, and V8 then gives them one hidden class.
 */
/** Each object's fields that still hold their stored bytes (an assignment drops them). */
const storedBytes = new WeakMap<object, Map<string, Uint8Array>>()

/** Makes `object[field]` the text `bytes` hold, decoded on the first read. */
export function decodedWhenRead<T extends object>(object: T, field: keyof T & string, bytes: Buffer): void {
  let fields = storedBytes.get(object)
  if (!fields) storedBytes.set(object, (fields = new Map()))
  fields.set(field, bytes)
  let text: string | undefined
  Object.defineProperty(object, field, {
    get: () => (text ??= bytes.toString('utf8')),
    set: (value: string) => {
      text = value
      fields.delete(field)
    },
    enumerable: true,
    configurable: true,
  })
}

/** A chunk's text as textWhenRead keeps it: where its bytes are (until a text is assigned), and the text once read. */
interface HeldText {
  raw?: Buffer
  start: number
  end: number
  text?: string
}

const chunkTexts = new WeakMap<object, HeldText>()

function readChunkText(this: object): string {
  const held = chunkTexts.get(this)!
  return (held.text ??= held.raw!.toString('utf8', held.start, held.end))
}

function writeChunkText(this: object, text: string): void {
  chunkTexts.set(this, { start: 0, end: 0, text })
}

/** The one accessor of every chunk's `text` that textWhenRead makes. */
const CHUNK_TEXT: PropertyDescriptor = { get: readChunkText, set: writeChunkText, enumerable: true, configurable: true }

/** Adds `text` to `chunk` (after its other fields, where toChunks puts it): the text `raw` holds from `start` to `end`, decoded on the first read. */
export function textWhenRead<T extends object>(chunk: T, raw: Buffer, start: number, end: number): T & { text: string } {
  Object.defineProperty(chunk, 'text', CHUNK_TEXT)
  chunkTexts.set(chunk, { raw, start, end })
  return chunk as T & { text: string }
}

/** `object[field]` as UTF-8: the stored bytes when it still holds them (no decoding, no encoding), else the text encoded. */
export function utf8Of<T extends object>(object: T, field: keyof T & string): Uint8Array {
  const held = field === 'text' ? chunkTexts.get(object) : undefined
  if (held?.raw) return held.raw.subarray(held.start, held.end)
  return storedBytes.get(object)?.get(field) ?? Buffer.from(String(object[field]))
}
