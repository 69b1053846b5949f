#!/usr/bin/env node
// The CLI is written in TypeScript; tsx compiles it on the fly so the package
// runs straight from source in development and when installed.
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../cli/main.ts')
process.exitCode = await main(process.argv.slice(2))
