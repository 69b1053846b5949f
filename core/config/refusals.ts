/**
 * Why a config is refused, in words, for the mistakes checked in two places:
 * by the schema, and again where a config built in code (never validated)
 * would go wrong. Kept apart from the schema, which loads zod: the commands
 * that take a validated config from cli/config-memo.ts never load it.
 */
import type { MemberId } from '../providers/table.ts'

/** Why a chain may not name `provider` a second time (the schema's check, and resolveChain's for a config built in code). */
export const memberTwice = (provider: MemberId): string =>
  `"${provider}" appears twice; each member is tried at most once per turn, so list it once (put several models in its "models")`
