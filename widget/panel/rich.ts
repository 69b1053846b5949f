/**
 * Everything the panel draws text with, in one chunk fetched when the panel
 * opens rather than before it can be typed in: the Markdown renderer for
 * answers (marked and DOMPurify, most of the weight) and legible, marked
 * excerpts of passages (structure read back, terms matched as the index
 * matched them).
 */
export { renderAnswer } from './markdown.ts'
export { Excerpt } from './Excerpt.tsx'
export { termMarker } from './highlight.ts'
