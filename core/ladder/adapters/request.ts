import { callPath, withField, type Protocol } from '../../protocols/index.ts'
import type { WireRequest } from './types.ts'

/**
 * A chat request on a protocol's chat path: a JSON body with the output-token
 * ceiling written where that protocol reads it, and its version headers.
 */
export function chatRequest(protocol: Protocol, model: string, accept: string, body: Record<string, unknown>, maxTokens: number): WireRequest {
  return {
    path: callPath(protocol, 'chat', model),
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...protocol.headers },
    body: JSON.stringify(withField(body, protocol.maxTokens, maxTokens)),
  }
}
