import { startDevServer } from '/work/main/cli/commands/dev.ts'
const s = await startDevServer({ docsDir: '/tmp/g-docs', fakeProviders: true, port: 4399, indexDir: '/tmp/g-index', dbPath: '/tmp/g-proxy.sqlite', buildWidget: false, log: console.error })
console.log(s.url, JSON.stringify(s.manifest.chat), JSON.stringify(s.manifest.embedder))
