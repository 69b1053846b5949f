#!/usr/bin/env node
// An installed package runs the bundled JavaScript in dist/bin/ (built at `npm pack`,
// scripts/build-cli.ts).
// A checkout of the repository has the TypeScript sources beside this file and
// runs them through tsx, a dev dependency, so a change needs no build step.
import { existsSync } from 'node:fs'

const sources = new URL('../cli/main.ts', import.meta.url)
let main
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api')
  register()
  ;({ main } = await import(sources.href))
} else {
  ;({ main } = await import('../dist/bin/main.js'))
}
process.exitCode = await main(process.argv.slice(2))
