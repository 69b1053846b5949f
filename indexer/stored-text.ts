/**
 * Text fields kept as the UTF-8 bytes they were stored as, decoded only when
 * read. A re-index takes most pages from the page cache (page-cache.ts), and
 * an unchanged page's Markdown copy goes into the agent files as the bytes
 * it was stored as (utf8Of): never decoded, nor encoded again. On astro that
 * is 2.9 MB of strings a re-index no longer makes, nor collects.
 *
 * Each such field is an accessor of its own object, which gives the object
 * a hidden class of its own: fit for a few hundred page entries, not for
 * thousands of objects read on hot paths.
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

/** `object[field]` as UTF-8: the stored bytes when it still holds them (no decoding, no encoding), else the text encoded. */
export function utf8Of<T extends object>(object: T, field: keyof T & string): Uint8Array {
  return storedBytes.get(object)?.get(field) ?? Buffer.from(String(object[field]))
}
