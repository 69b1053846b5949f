/** How the CLI prints sizes: bytes under 1 KB, else KB with one decimal. */
export const kb = (n: number): string => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`)

/** "1 file", "3 files". */
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`
