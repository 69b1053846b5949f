/**
 * `npm run build:widget`: builds the loader and the panel into dist/widget/ (or the folder given).
 * --no-minify keeps the code readable; --no-onnx-runtime leaves out onnxruntime-web's runtime
 * files, as the npm package does (`npm run build`).
 */
import { buildWidget, DEFAULT_OUT_DIR } from './vite.config.ts'

const args = process.argv.slice(2)
const out = await buildWidget(args.find((a) => !a.startsWith('--')) ?? DEFAULT_OUT_DIR, {
  minify: !args.includes('--no-minify'),
  onnxRuntime: !args.includes('--no-onnx-runtime'),
})
console.log(`docpilot widget built into ${out}`)
