/**
 * `embed: 'auto'` follows the member that leads the chat chain (never a member
 * the sort moved past). When the head cannot embed, 'auto' means the offline
 * default embedder, signalled here by null.
 */
import { providerSpec, type MemberId } from '../providers/table.ts'
import type { ResolvedChain } from './resolve.ts'

export interface AutoEmbedMember {
  provider: MemberId
  /** The head's embedding model from the table. */
  model: string
  baseUrl: string | null
}

export function autoEmbedMember(resolved: ResolvedChain): AutoEmbedMember | null {
  const head = resolved.members[0]
  if (!head) return null
  const spec = providerSpec(head.provider)
  if (!spec.embeds || !spec.defaultEmbedModel) return null
  return { provider: head.provider, model: spec.defaultEmbedModel, baseUrl: head.baseUrl }
}
