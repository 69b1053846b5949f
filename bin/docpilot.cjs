#!/usr/bin/env node
// An installed package runs the bundled command in dist/bin/ (built at `npm pack`,
// scripts/build-cli.ts) through dist/bin/launch.cjs, which keeps V8's code cache.
// A checkout of the repository has the TypeScript sources beside this file and
// runs them through tsx, a dev dependency, so a change needs no build step.
// CommonJS, as the launcher is: an ES module here would start Node's ES module
// loader on every run (~7 ms of CPU) for nothing an installed package uses.
'use strict'
const { existsSync } = require('node:fs')
const { join } = require('node:path')
const { pathToFileURL } = require('node:url')

const argv = process.argv.slice(2)
const sources = join(__dirname, '../cli/main.ts')
const exitCode = existsSync(sources)
  ? import('tsx/esm/api')
      .then(({ register }) => {
        register()
        return import(pathToFileURL(sources).href)
      })
      .then(({ main }) => main(argv))
  : require('../dist/bin/launch.cjs').launch(argv)
exitCode.then((code) => {
  process.exitCode = code
})
