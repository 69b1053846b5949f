/**
 * Per-day rationing is only defensible against one allowance. A chain that
 * mixes the free tier with a billed account has two allowances and one
 * counter, so rationing turns off unless budget.dailyLimit states one ceiling;
 * `index` and `doctor` print the note so nobody discovers it on an invoice.
 * A chain of the free tier alone has exactly one allowance, the free tier's
 * day, so the site rations itself to it rather than spending readers'
 * questions on requests the service will refuse.
 */
import type { PublicChainMember } from '../index/format.ts'
import { FREE_DAILY_REQUESTS } from '../ladder/free-pool.ts'

export interface Rationing {
  enabled: boolean
  dailyLimit?: number
  note?: string
}

export const MIXED_CHAIN_NOTE =
  "This chain mixes a free tier with a billed account, so per-day rationing is off: once the free tier's day is spent, questions rotate to the billed member and are billed. Set budget.dailyLimit to state one ceiling for the whole chain."

export const FREE_ONLY_NOTE =
  `This chain is a free tier alone, so the site rations itself to the free tier's ${FREE_DAILY_REQUESTS.underTenCredits} requests a day. ` +
  `If the account holds ten credits or more its allowance is ${FREE_DAILY_REQUESTS.overTenCredits}: set budget.dailyLimit to ${FREE_DAILY_REQUESTS.overTenCredits}.`

export function isMixedChain(members: readonly Pick<PublicChainMember, 'tier'>[]): boolean {
  return members.some((m) => m.tier === 'free') && members.some((m) => m.tier === 'billed')
}

function isFreeOnly(members: readonly Pick<PublicChainMember, 'tier'>[]): boolean {
  return members.length > 0 && members.every((m) => m.tier === 'free')
}

export function rationing(members: readonly Pick<PublicChainMember, 'tier'>[], budget?: { dailyLimit?: number }): Rationing {
  const limit = budget?.dailyLimit
  if (limit !== undefined) return { enabled: true, dailyLimit: limit }
  if (isMixedChain(members)) return { enabled: false, note: MIXED_CHAIN_NOTE }
  if (isFreeOnly(members)) return { enabled: true, dailyLimit: FREE_DAILY_REQUESTS.underTenCredits, note: FREE_ONLY_NOTE }
  return { enabled: true }
}
