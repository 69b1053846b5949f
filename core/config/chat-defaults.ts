/**
 * The answer settings a turn uses when the owner set none: the config
 * schema's defaults, and the turn engine's when an index carries no settings.
 * Kept apart from the schema so the browser gets them without zod.
 */
import type { PublicChatSettings } from '../index/format.ts'

export const CHAT_DEFAULTS = {
  maxTokens: 1024,
  temperature: 0.2,
  timeouts: { firstByteMs: 15_000, idleMs: 20_000 },
} as const satisfies PublicChatSettings
