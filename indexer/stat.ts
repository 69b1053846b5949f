/** Questions about a path that a missing path answers with "no" rather than an error. */
import { stat } from 'node:fs/promises'

/** Whether anything (file or folder) exists at `path`. */
export const exists = (path: string): Promise<boolean> => stat(path).then(
  () => true,
  () => false,
)

/** Whether `path` is a regular file (following links). */
export const isFile = (path: string): Promise<boolean> => stat(path).then(
  (s) => s.isFile(),
  () => false,
)
