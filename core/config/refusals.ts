/**
 * Why a config is refused, in words, for the mistakes checked in two places:
 * by the schema, and again where a config built in code (never validated)
 * would go wrong. Kept apart from the schema, which loads zod: the commands
 * that take a validated config from cli/config-memo.ts never load it.
 */
import { CHAIN, providerSpec, type MemberId } from '../providers/table.ts'

/** Why a chain may not name `provider` a second time (the schema's check, and resolveChain's for a config built in code). */
export const memberTwice = (provider: MemberId): string =>
  `"${provider}" appears twice; each member is tried at most once per turn, so list it once (put several models in its "models")`

const EMBEDDING_MEMBERS = CHAIN.filter((spec) => spec.embeds).map((spec) => spec.id)

/**
 * Why `provider` cannot embed an index (with `model`, when one was named), or
 * undefined when it can. Checked by the schema, so every command refuses the config
 * before it runs, and by `docpilot index` again for a config built in code.
 */
export function cannotEmbed(provider: MemberId, model: string | undefined): string | undefined {
  const spec = providerSpec(provider)
  if (!spec.embeds) {
    const others = `${EMBEDDING_MEMBERS.slice(0, -1).join(', ')} or ${EMBEDDING_MEMBERS.at(-1)}`
    return `"${provider}" has no embeddings API; embed with one that has (${others}), 'default' (the offline model) or false (search by words alone)`
  }
  if (!model && !spec.defaultEmbedModel) {
    return `"${provider}" has no default embedding model; name the one your server serves: embed: { provider: '${provider}', model: '<model>' }`
  }
  return undefined
}
