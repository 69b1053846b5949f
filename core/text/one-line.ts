import { cutText } from './cut.ts'

/** Text on one line, as a browser lays out inline content: every run of white space, line breaks included, is one space. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim()

/** `text` on one line, cut to at most `max` characters, an ellipsis counted among them, when longer (never inside a surrogate pair). */
export function oneLineClipped(text: string, max: number): string {
  const flat = oneLine(text)
  return flat.length > max ? `${cutText(flat, max - 1)}…` : flat
}
