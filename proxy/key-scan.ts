/**
 * Looking for credentials in bytes a browser can receive. A key can leave
 * disguised: quoted in JSON, percent-encoded in a URL, or base64-encoded (a
 * Basic auth header, a data: URL, a bundled blob), where it shows up at any of
 * three alignments inside a longer base64 run. Each form is searched for.
 */

export interface KeyHit {
  /** The key, shortened so a report never prints a whole one. */
  key: string
  /** Which blob it was found in (a file, a response). */
  where: string
  form: 'raw' | 'percent-encoded' | 'json-escaped' | 'base64' | 'base64url'
}

/** What a browser received: a name and its bytes (or text). */
export interface Blob {
  where: string
  bytes: Uint8Array | string
}

const MIN_KEY_LENGTH = 8

/** The key's base64 text at each alignment, minus the edge characters that depend on neighbouring bytes. */
function base64Forms(key: Uint8Array, alphabet: 'base64' | 'base64url'): string[] {
  const forms: string[] = []
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + key.length)
    padded.set(key, shift)
    let text = Buffer.from(padded).toString(alphabet).replace(/=+$/, '')
    // Leading characters mix in the shift bytes; trailing ones the bytes after the key.
    const lead = Math.ceil((shift * 8) / 6)
    const usable = Math.floor(((shift + key.length) * 8) / 6)
    text = text.slice(lead, usable)
    if (text.length >= MIN_KEY_LENGTH) forms.push(text)
  }
  return forms
}

function formsOf(key: string): { form: KeyHit['form']; text: string }[] {
  const bytes = new TextEncoder().encode(key)
  const forms: { form: KeyHit['form']; text: string }[] = [{ form: 'raw', text: key }]
  const percent = encodeURIComponent(key)
  if (percent !== key) forms.push({ form: 'percent-encoded', text: percent })
  const escaped = JSON.stringify(key).slice(1, -1)
  if (escaped !== key) forms.push({ form: 'json-escaped', text: escaped })
  for (const text of base64Forms(bytes, 'base64')) forms.push({ form: 'base64', text })
  for (const text of base64Forms(bytes, 'base64url')) if (!forms.some((f) => f.text === text)) forms.push({ form: 'base64url', text })
  return forms
}

/** Byte-exact search: binary blobs are read as latin1 so every byte maps to one character. */
function asSearchable(bytes: Uint8Array | string): string {
  return typeof bytes === 'string' ? Buffer.from(bytes, 'utf8').toString('latin1') : Buffer.from(bytes).toString('latin1')
}

/** Every place any key (in any form) occurs in any blob. Keys shorter than 8 characters are refused: they would match by chance. */
export function findKeys(blobs: Iterable<Blob>, keys: readonly string[]): KeyHit[] {
  for (const k of keys) {
    if (k.length < MIN_KEY_LENGTH) throw new Error(`findKeys: a ${k.length}-character key would match by chance; use keys of ${MIN_KEY_LENGTH}+ characters in tests`)
  }
  const needles = keys.flatMap((key) => formsOf(key).map((f) => ({ key, ...f, latin1: Buffer.from(f.text, 'utf8').toString('latin1') })))
  const hits: KeyHit[] = []
  for (const blob of blobs) {
    const hay = asSearchable(blob.bytes)
    for (const n of needles) {
      if (hay.includes(n.latin1)) hits.push({ key: `${n.key.slice(0, 6)}…`, where: blob.where, form: n.form })
    }
  }
  return hits
}
