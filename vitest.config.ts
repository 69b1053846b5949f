import { defineConfig } from 'vitest/config'

/**
 * The packed-install test rebuilds dist/ (npm pack runs the prepack build), as
 * the bench harness's tests do (bench/compiled-cli.ts): run side by side, one
 * build deleted files the other was packing (a 1.8 MB tarball with no model).
 * So it runs alone, after every other file.
 */
const PACKED_INSTALL = 'cli/npm-install.test.ts'

export default defineConfig({
  test: {
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep worker count modest so integration tests with servers stay stable.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{core,indexer,widget,proxy,cli,integrations,fixtures,bench,scripts}/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**', PACKED_INSTALL],
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'packed-install', include: [PACKED_INSTALL], sequence: { groupOrder: 1 } } },
    ],
  },
})
