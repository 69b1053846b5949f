import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['{core,indexer,widget,proxy,cli,integrations,fixtures,bench,scripts}/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep worker count modest so integration tests with servers stay stable.
    maxWorkers: 2,
  },
})
