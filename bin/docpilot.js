#!/usr/bin/env node
// An installed package runs the bundled command in dist/bin/ (built at `npm pack`,
// scripts/build-cli.ts) through dist/bin/launch.js, which keeps V8's code cache.
// A checkout of the repository has the TypeScript sources beside this file and
// runs them through tsx, a dev dependency, so a change needs no build step.
import { existsSync } from 'node:fs'

const sources = new URL('../cli/main.ts', import.meta.url)
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api')
  register()
  const { main } = await import(sources.href)
  process.exitCode = await main(process.argv.slice(2))
} else {
  const { launch } = await import('../dist/bin/launch.js')
  process.exitCode = await launch(process.argv.slice(2))
}
