/**
 * The widget is two builds into dist/widget/:
 *  - docpilot.js: the loader, one classic script (IIFE), no dependencies;
 *  - docpilot-panel.js, docpilot-worker.js, docpilot.esm.js (+ shared chunks):
 *    ES modules the loader imports on first open, and the module a site
 *    that bundles the panel imports itself.
 * `vite build -c widget/vite.config.ts` runs the panel build; `buildWidget()`
 * runs both (the dev server and `npm run build:widget` use it).
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, defineConfig, type InlineConfig } from 'vite'
import { copyOnnxRuntime } from '../cli/widget-files.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))
export const DEFAULT_OUT_DIR = fileURLToPath(new URL('../dist/widget/', import.meta.url))

/**
 * onnxruntime-web's default browser entry carries its WebAssembly inlined
 * (tens of MB in one script). The plain wasm entry loads
 * ort-wasm-simd-threaded.{mjs,wasm} from beside itself instead, so those two
 * files sit next to the widget's chunks (cli/widget-files.ts) and only
 * readers of an ONNX index ever fetch them.
 */
const ORT_DIST = fileURLToPath(new URL('../node_modules/onnxruntime-web/dist/', import.meta.url))

const shared = (outDir: string, minify: boolean): InlineConfig => ({
  configFile: false,
  root,
  resolve: { alias: [{ find: /^onnxruntime-web$/, replacement: join(ORT_DIST, 'ort.wasm.min.mjs') }] },
  logLevel: 'warn',
  publicDir: false,
  define: { 'process.env.NODE_ENV': '"production"' },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir,
    emptyOutDir: false,
    minify,
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
    // Build-speed notes are noise in `docpilot dev` and test output.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
})

export function panelConfig(outDir = DEFAULT_OUT_DIR, minify = true): InlineConfig {
  const base = shared(outDir, minify)
  return {
    ...base,
    build: {
      ...base.build,
      lib: {
        entry: {
          'docpilot-panel': here('./panel/mount.tsx'),
          'docpilot-worker': here('./worker/retrieval.worker.ts'),
          'docpilot.esm': here('./index.ts'),
        },
        formats: ['es'],
        fileName: (_format, name) => `${name}.js`,
      },
      rolldownOptions: { ...base.build?.rolldownOptions, output: { chunkFileNames: 'docpilot-[name]-[hash].js' } },
    },
  }
}

export function loaderConfig(outDir = DEFAULT_OUT_DIR, minify = true): InlineConfig {
  const base = shared(outDir, minify)
  return {
    ...base,
    build: {
      ...base.build,
      lib: { entry: here('./loader.ts'), formats: ['iife'], name: 'docpilotLoader', fileName: () => 'docpilot.js' },
    },
  }
}

/**
 * Builds the loader and the panel; returns the output folder. The ONNX
 * runtime files are added unless `onnxRuntime` is false: the npm package
 * leaves them out (14 MB) and takes them from the owner's onnxruntime-web.
 */
export async function buildWidget(outDir = DEFAULT_OUT_DIR, opts: { minify?: boolean; onnxRuntime?: boolean } = {}): Promise<string> {
  const minify = opts.minify ?? true
  await build(panelConfig(outDir, minify))
  await build(loaderConfig(outDir, minify))
  if (opts.onnxRuntime !== false) {
    const said = await copyOnnxRuntime(outDir)
    if (!said.startsWith('ONNX runtime files included')) throw new Error(said)
  }
  return outDir
}

export default defineConfig(panelConfig())
