/**
 * Looking for credentials in bytes a browser can receive, and removing them.
 * A key can leave disguised: quoted in JSON, percent-encoded in a URL, or
 * base64-encoded (a Basic auth header, a data: URL, a bundled blob), where it
 * shows up at any of three alignments inside a longer base64 run. Each form
 * is searched for.
 *
 * Runtime-neutral (no Buffer): the proxy redacts with it on Node and on
 * Workers, and the tests scan what the browser received with it.
 */

export interface KeyHit {
  /** The key, shortened so a report never prints a whole one. */
  key: string
  /** Which blob it was found in (a file, a response). */
  where: string
  form: KeyForm
}

export type KeyForm = 'raw' | 'percent-encoded' | 'json-escaped' | 'base64' | 'base64url'

/** What a browser received: a name and its bytes (or text). */
export interface Blob {
  where: string
  bytes: Uint8Array | string
}

/** Shorter keys would match by chance; the encoded forms are searched only for keys at least this long. */
export const MIN_KEY_LENGTH = 8

/** Bytes as a string of one character per byte (latin1), so any byte sequence can be searched as text. */
function binaryString(bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return out
}

function toBase64(bytes: Uint8Array, alphabet: 'base64' | 'base64url'): string {
  const text = btoa(binaryString(bytes)).replace(/=+$/, '')
  return alphabet === 'base64' ? text : text.replace(/\+/g, '-').replace(/\//g, '_')
}

/** The key's base64 text at each alignment, minus the edge characters that depend on neighbouring bytes. */
function base64Forms(key: Uint8Array, alphabet: 'base64' | 'base64url'): string[] {
  const forms: string[] = []
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + key.length)
    padded.set(key, shift)
    // Leading characters mix in the shift bytes; trailing ones the bytes after the key.
    const lead = Math.ceil((shift * 8) / 6)
    const usable = Math.floor(((shift + key.length) * 8) / 6)
    const text = toBase64(padded, alphabet).slice(lead, usable)
    if (text.length >= MIN_KEY_LENGTH) forms.push(text)
  }
  return forms
}

/** Every form a key can take in text a browser receives, the key itself first. */
export function formsOf(key: string): { form: KeyForm; text: string }[] {
  const forms: { form: KeyForm; text: string }[] = [{ form: 'raw', text: key }]
  if (key.length < MIN_KEY_LENGTH) return forms
  const bytes = new TextEncoder().encode(key)
  const add = (form: KeyForm, text: string) => {
    if (!forms.some((f) => f.text === text)) forms.push({ form, text })
  }
  add('percent-encoded', encodeURIComponent(key))
  add('json-escaped', JSON.stringify(key).slice(1, -1))
  for (const text of base64Forms(bytes, 'base64')) add('base64', text)
  for (const text of base64Forms(bytes, 'base64url')) add('base64url', text)
  return forms
}

/** Byte-exact search: text is UTF-8 encoded, then every byte maps to one character. */
function asSearchable(bytes: Uint8Array | string): string {
  return binaryString(typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes)
}

/** Every place any key (in any form) occurs in any blob. Keys shorter than 8 characters are refused: they would match by chance. */
export function findKeys(blobs: Iterable<Blob>, keys: readonly string[]): KeyHit[] {
  for (const k of keys) {
    if (k.length < MIN_KEY_LENGTH) throw new Error(`findKeys: a ${k.length}-character key would match by chance; use keys of ${MIN_KEY_LENGTH}+ characters in tests`)
  }
  const needles = keys.flatMap((key) => formsOf(key).map((f) => ({ key, ...f, bytes: asSearchable(f.text) })))
  const hits: KeyHit[] = []
  for (const blob of blobs) {
    const hay = asSearchable(blob.bytes)
    for (const n of needles) {
      if (hay.includes(n.bytes)) hits.push({ key: `${n.key.slice(0, 6)}…`, where: blob.where, form: n.form })
    }
  }
  return hits
}

export const REDACTED = '[redacted]'

/**
 * Replaces every form of every key in text. `carry` is the longest needle
 * minus one: a streaming caller that holds back that many characters (or
 * fewer, see `heldBack`) never lets a key through split across two chunks.
 */
export class Redactor {
  private readonly needles: string[]
  readonly carry: number

  constructor(keys: Iterable<string | undefined>) {
    const all = new Set<string>()
    for (const key of keys) if (key) for (const f of formsOf(key)) all.add(f.text)
    // Longest first, so a form that contains another is replaced whole.
    this.needles = [...all].sort((a, b) => b.length - a.length)
    this.carry = Math.max(0, ...this.needles.map((n) => n.length - 1))
  }

  get empty(): boolean {
    return this.needles.length === 0
  }

  redact(text: string): string {
    let out = text
    for (const n of this.needles) if (out.includes(n)) out = out.split(n).join(REDACTED)
    return out
  }

  contains(text: string): boolean {
    return this.needles.some((n) => text.includes(n))
  }

  /**
   * How many trailing characters of already-redacted text might be the start
   * of a key the next chunk completes: the longest suffix that is a prefix of
   * some needle (at most `carry`). Usually 0, so a stream is not delayed.
   */
  heldBack(text: string): number {
    let held = 0
    for (const n of this.needles) {
      for (let len = Math.min(n.length - 1, text.length); len > held; len--) {
        if (text.endsWith(n.slice(0, len))) {
          held = len
          break
        }
      }
    }
    return held
  }

  /** A stream of UTF-8 text with every key form replaced, holding back only a possible partial key between chunks. */
  stream(): TransformStream<Uint8Array, Uint8Array> {
    const decoder = new TextDecoder()
    const encoder = new TextEncoder()
    let pending = ''
    return new TransformStream({
      transform: (chunk, controller) => {
        const text = this.redact(pending + decoder.decode(chunk, { stream: true }))
        const held = this.heldBack(text)
        pending = text.slice(text.length - held)
        const out = text.slice(0, text.length - held)
        if (out) controller.enqueue(encoder.encode(out))
      },
      flush: (controller) => {
        const text = this.redact(pending + decoder.decode())
        if (text) controller.enqueue(encoder.encode(text))
      },
    })
  }
}
