/**
 * Text fields kept as the UTF-8 bytes they were stored as, decoded only when
 * read. A re-index takes most pages from the page cache (page-cache.ts):
 * an unchanged page's Markdown copy goes into the agent files as the bytes
 * it was stored as (utf8Of), never decoded, nor encoded again, and of its
 * chunks' texts the run reads only those of the chunks whose part it writes
 * again. On astro that is 2.9 MB of Markdown copies and 4,000 chunk texts
 * (2.5 MB) a re-index no longer decodes, nor collects.
 *
 * Such a field is an accessor, and every object's accessor of one field name
 * is the same pair of functions (what each object holds is in a WeakMap):
 * V8 then gives objects of one shape one hidden class, where an accessor
 * of each object's own would give each its own, and every reader of
 * thousands of chunks would slow.
 */

/** A field's stored text: where its bytes are (until a text is assigned), and the text once read. */
interface Held {
  raw?: Buffer
  start: number
  end: number
  text?: string
}

interface StoredField {
  held: WeakMap<object, Held>
  accessor: PropertyDescriptor
}

const storedFields = new Map<string, StoredField>()

function storedField(name: string): StoredField {
  let field = storedFields.get(name)
  if (!field) {
    const held = new WeakMap<object, Held>()
    const accessor: PropertyDescriptor = {
      get(this: object): string {
        const h = held.get(this)!
        return (h.text ??= h.raw!.toString('utf8', h.start, h.end))
      },
      set(this: object, text: string): void {
        held.set(this, { start: 0, end: 0, text })
      },
      enumerable: true,
      configurable: true,
    }
    storedFields.set(name, (field = { held, accessor }))
  }
  return field
}

/**
 * Makes `object[field]` the text `raw` holds from `start` to `end`, decoded on
 * the first read: in the field's place when the object has it, else after
 * its other fields.
 */
export function decodedWhenRead<T extends object, K extends string>(object: T, field: K, raw: Buffer, start: number, end: number): T & Record<K, string> {
  const { held, accessor } = storedField(field)
  Object.defineProperty(object, field, accessor)
  held.set(object, { raw, start, end })
  return object as T & Record<K, string>
}

/** The bytes `object[field]` was stored as, while it holds them (until a text is assigned); else undefined. */
export function heldBytes(object: object, field: string): Uint8Array | undefined {
  const held = storedFields.get(field)?.held.get(object)
  return held?.raw ? held.raw.subarray(held.start, held.end) : undefined
}

/** `object[field]` as UTF-8: the stored bytes when it still holds them (no decoding, no encoding), else the text encoded. */
export function utf8Of<T extends object>(object: T, field: keyof T & string): Uint8Array {
  return heldBytes(object, field) ?? Buffer.from(String(object[field]))
}
