/**
 * The widget's end-to-end tests: real Debian Chromium, the real dev server
 * (Node proxy included) started inside the test worker, and the fake
 * providers as the only stand-ins. Screenshots of every state are kept as
 * test artifacts under test-results/e2e/.
 */
import { defineConfig } from '@playwright/test'

/** The Debian Chromium (DOCPILOT_CHROMIUM points elsewhere), and the flags every run of it here uses. */
export const CHROMIUM_PATH = process.env.DOCPILOT_CHROMIUM ?? '/usr/bin/chromium'

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
]

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  outputDir: 'test-results/e2e',
  // Two cores shared with everything else: one browser at a time keeps timings honest.
  workers: 1,
  fullyParallel: false,
  // Generous limits: seven people share two cores; specs wait on state, never on time.
  timeout: 120_000,
  expect: { timeout: 20_000 },
  reporter: process.env.CI ? [['list'], ['json', { outputFile: 'test-results/e2e-report.json' }]] : [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    screenshot: 'only-on-failure',
    trace: 'off',
    video: 'off',
    viewport: { width: 1200, height: 860 },
  },
})
