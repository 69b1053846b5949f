/**
 * Whether a text holds half of a UTF-16 surrogate pair without its other
 * half: no character at all. JSON and JavaScript strings can hold one, UTF-8
 * cannot (encoders write U+FFFD in its place), so a text with one does not
 * survive a trip through bytes unchanged.
 */
export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text)

// String.prototype.isWellFormed (ES2024) says the same, but core/ also runs in browsers that lack it (Safari before 16.4).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
