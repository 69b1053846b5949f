/** Stream framing shared by the adapters: SSE (via eventsource-parser) and NDJSON lines. */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { StreamDecoder, StreamEvent } from './types.ts'

export function sseDecoder(
  onMessage: (message: EventSourceMessage) => StreamEvent[],
  onUnknownField?: (field: string, value: string) => StreamEvent[],
): StreamDecoder {
  let queue: StreamEvent[] = []
  const parser = createParser({
    onEvent: (message) => {
      queue.push(...onMessage(message))
    },
    onError: (error) => {
      if (onUnknownField && error.type === 'unknown-field' && error.field !== undefined)
        queue.push(...onUnknownField(error.field, error.value ?? ''))
    },
  })
  const drain = (): StreamEvent[] => {
    const out = queue
    queue = []
    return out
  }
  return {
    push(text) {
      parser.feed(text)
      return drain()
    },
    end() {
      // A last event without its blank line still counts.
      parser.reset({ consume: true })
      return drain()
    },
  }
}

export function ndjsonDecoder(onLine: (value: unknown) => StreamEvent[], onGarbage: (line: string) => StreamEvent[]): StreamDecoder {
  let buffer = ''
  const lines = (final: boolean): StreamEvent[] => {
    const out: StreamEvent[] = []
    const parts = buffer.split('\n')
    buffer = final ? '' : (parts.pop() ?? '')
    for (const raw of parts) {
      const line = raw.trim()
      if (!line) continue
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        out.push(...onGarbage(line))
        continue
      }
      out.push(...onLine(value))
    }
    return out
  }
  return {
    push(text) {
      buffer += text
      return lines(false)
    },
    end() {
      return lines(true)
    },
  }
}

export function jsonOrUndefined(data: string): unknown {
  try {
    return JSON.parse(data)
  } catch {
    return undefined
  }
}
