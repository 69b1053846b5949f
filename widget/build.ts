/** `npm run build:widget`: builds the loader and the panel into dist/widget/ (or the folder given). */
import { buildWidget, DEFAULT_OUT_DIR } from './vite.config.ts'

const out = await buildWidget(process.argv[2] ?? DEFAULT_OUT_DIR, { minify: !process.argv.includes('--no-minify') })
console.log(`docpilot widget built into ${out}`)
