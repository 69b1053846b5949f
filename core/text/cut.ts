/**
 * The first `n` UTF-16 units of a text, one fewer where the cut would split
 * a surrogate pair (an emoji, a rare CJK character). A lone half is no
 * character: a page shows it as �, and in a prompt's JSON it is a body that
 * Anthropic and OpenAI refuse with a 400, on every member, for as long as the
 * cut text stays in the conversation's history.
 */
export function cutText(text: string, n: number): string {
  const last = text.charCodeAt(n - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? n - 1 : n)
}
