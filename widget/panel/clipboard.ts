/** Copies text; false when the browser refuses (no clipboard API, or not allowed here). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    return false
  }
}
