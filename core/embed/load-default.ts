/**
 * Where the committed offline default model lives, for code that runs in Node
 * (the CLI, tests, benchmarks). Browser code gets the same files from the
 * index folder, content-addressed, and never imports this.
 */
export const DEFAULT_MODEL_DIR = new URL('../../models/default-en/', import.meta.url)
