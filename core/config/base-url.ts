/**
 * What makes a provider's base URL unusable, worded once for a chain entry's
 * baseURL (the config schema) and a base URL variable (badBaseUrl in
 * core/chain/resolve.ts). Each says the fix, never the value: a URL may hold
 * a credential, and on a Worker the message reaches the browser.
 */
import { providerSpec, type MemberId } from '../providers/table.ts'

/** What an own server's base URL looks like (docs/answer-ladder.md); hosted members show their default. */
const OWN_SERVER_URL: Partial<Record<MemberId, string>> = {
  custom: 'http://10.0.0.5:8000/v1',
  llamacpp: 'http://127.0.0.1:8080/v1',
  ollama: 'http://127.0.0.1:11434',
}

/** Why `value` cannot be `provider`'s base URL (to follow the field or variable's name), or undefined when it can. */
export function baseUrlProblem(provider: MemberId, value: string): string | undefined {
  const spec = providerSpec(provider)
  const url = URL.parse(value)
  // `localhost:11434`, as Ollama's own OLLAMA_HOST is written, parses with `localhost:` as its scheme.
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return `is not an http(s) URL; write it with its scheme, e.g. ${spec.defaultBaseUrl ?? OWN_SERVER_URL[provider]}`
  }
  // fetch refuses such a URL with an error that quotes it whole, which the proxy would pass on to the browser.
  if (url.username || url.password) {
    return `holds a user name or password, which fetch will not send from a URL: remove it${spec.keyEnv ? `, and put the key in ${spec.keyEnv}` : ''}`
  }
  // The request's path is appended to the base URL, so a query or fragment would swallow it; and a key written
  // there is not one the proxy knows to redact: an upstream quoting the URL it was sent would show it to readers.
  if (/[?#]/.test(value)) {
    return `holds a query or a fragment (from ? or #), which the request's path would be appended to: end it at the path${spec.keyEnv ? `, and put a key in ${spec.keyEnv}` : ''}`
  }
  return undefined
}
