/**
 * Where the widget's browser files (loader, panel, retrieval worker) come
 * from. An installed package ships them prebuilt in dist/widget/ (built at
 * `prepack`); a checkout of the repository rebuilds them from the sources
 * with Vite, so they always match the code. `docpilot widget` and
 * `docpilot dev` both ask here, so the two never disagree.
 */
import { existsSync, readFileSync } from 'node:fs'
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FROM_SOURCES, PACKAGE_ROOT } from './package-root.ts'
import type { Mount } from './site-server.ts'
import { WrittenFiles } from '../indexer/written-files.ts'
import { embedderRuntime } from '../core/embed/open.ts'
import type { EmbedderIdentity } from '../core/index/format.ts'

/** The prebuilt widget an installed package ships (and where a checkout builds it). */
export const SHIPPED_WIDGET_DIR = join(PACKAGE_ROOT, 'dist/widget')

type BuildWidget = (outDir: string, opts?: { minify?: boolean; onnxRuntime?: boolean }) => Promise<string>

/**
 * The checkout's widget build, or null in an installed package. The module is
 * named by a computed path so the compiled package never refers to the
 * widget's sources or to Vite, which it does not ship.
 */
export async function widgetBuilder(): Promise<BuildWidget | null> {
  if (!FROM_SOURCES) return null
  const config = join(PACKAGE_ROOT, 'widget/vite.config.ts')
  return ((await import(pathToFileURL(config).href)) as { buildWidget: BuildWidget }).buildWidget
}

export function hasWidget(dir: string): boolean {
  return existsSync(join(dir, 'docpilot.js'))
}

/** The shipped widget folder, or an error that says how to get one. */
export function shippedWidget(): string {
  if (!hasWidget(SHIPPED_WIDGET_DIR)) {
    throw new Error(
      FROM_SOURCES
        ? `the widget is not built in ${SHIPPED_WIDGET_DIR}; run \`npm run build:widget\` (or drop --no-build)`
        : `this docpilot install has no widget files (${SHIPPED_WIDGET_DIR} is missing); reinstall docpilot`,
    )
  }
  return SHIPPED_WIDGET_DIR
}

/** A widget folder someone named, or an error that says how to fill it. */
export function requireWidget(dir: string): string {
  if (!hasWidget(dir)) throw new Error(`the widget is not built in ${dir}; run \`npx docpilot widget --out ${dir}\``)
  return dir
}

/**
 * The WebAssembly runtime the panel loads only for an index with an ONNX
 * embedder: two files of onnxruntime-web, next to the widget's chunks. They
 * are 14 MB, so the package does not ship them; an owner with an ONNX
 * embedder has onnxruntime-web installed anyway (indexing needs it), and the
 * files come from there. The panel's bundled ONNX code and these files must be
 * the same release: the one docpilot's own devDependency pins.
 */
export const ONNX_RUNTIME_FILES = ['ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'] as const

export type OnnxRuntime = { dir: string; version: string } | { missing: string }

/** onnxruntime-web's dist folder, when the installed release is the one the panel was built with. */
export function onnxRuntime(): OnnxRuntime {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> }
  const wanted = pkg.devDependencies?.['onnxruntime-web'] ?? ''
  let entry: string
  try {
    entry = createRequire(join(PACKAGE_ROOT, 'package.json')).resolve('onnxruntime-web')
  } catch {
    return { missing: `onnxruntime-web is not installed (only indexes with an ONNX embedder need it: npm install onnxruntime-web@${wanted})` }
  }
  const dir = dirname(entry)
  const version = (JSON.parse(readFileSync(join(dir, '..', 'package.json'), 'utf8')) as { version: string }).version
  if (version !== wanted) {
    return { missing: `onnxruntime-web ${version} is installed, and the panel was built with ${wanted}: npm install onnxruntime-web@${wanted}` }
  }
  return { dir, version }
}

/** The ONNX runtime note for an index with this embedder: only an ONNX one loads the runtime, so only its owner needs to hear it is missing. */
export function onnxNoteFor(embedder: EmbedderIdentity, note: string | undefined): string | undefined {
  return note !== undefined && embedderRuntime(embedder) === 'onnx' ? note : undefined
}

/** What a widget folder holds of the ONNX runtime, in words: the files of this release, or why not. */
const runtimeNote = (runtime: OnnxRuntime): string =>
  'missing' in runtime ? `ONNX runtime files not included: ${runtime.missing}.` : `ONNX runtime files included (onnxruntime-web ${runtime.version}).`

/** Copies the ONNX runtime files into a widget folder; says what it did either way. */
export async function copyOnnxRuntime(outDir: string): Promise<string> {
  const runtime = onnxRuntime()
  if (!('missing' in runtime)) await Promise.all(ONNX_RUNTIME_FILES.map((name) => copyFile(join(runtime.dir, name), join(outDir, name))))
  return runtimeNote(runtime)
}

/**
 * Writes the widget into a folder: rebuilt from the sources in a checkout (in
 * a scratch folder first), taken from the package in an install with the ONNX
 * runtime files when they are installed. With a `cacheDir` the files are
 * remembered (WrittenFiles), so a later run removes the chunks it no longer
 * ships (an upgrade renames them by their hash) while they are as it wrote
 * them; whatever else the folder holds is never touched. Returns how many
 * files the widget is, and the ONNX runtime note of an install (a checkout's
 * build includes the runtime itself).
 */
export async function writeWidget(outDir: string, opts: { minify?: boolean; cacheDir?: string } = {}): Promise<{ files: number; note?: string }> {
  const build = await widgetBuilder()
  const scratch = build ? await mkdtemp(join(tmpdir(), 'docpilot-widget-')) : undefined
  try {
    let sources: string[]
    let note: string | undefined
    if (build && scratch) {
      await build(scratch, opts)
      sources = (await readdir(scratch)).map((name) => join(scratch, name))
    } else {
      const shipped = shippedWidget()
      sources = (await readdir(shipped)).map((name) => join(shipped, name))
      const runtime = onnxRuntime()
      if (!('missing' in runtime)) sources.push(...ONNX_RUNTIME_FILES.map((name) => join(runtime.dir, name)))
      note = runtimeNote(runtime)
    }
    const out = resolve(outDir)
    const written = await WrittenFiles.open(out, opts.cacheDir ? { cacheDir: opts.cacheDir, scope: 'widget', kind: 'widget-files' } : undefined)
    for (const file of sources) written.write(join(out, basename(file)), await readFile(file))
    await written.finish()
    return { files: sources.length, ...(note ? { note } : {}) }
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true })
  }
}

/**
 * The folders that serve the widget at a URL path when it comes from the
 * package: its files, and the ONNX runtime files beside them when installed.
 */
export function shippedWidgetMounts(url: string, widgetDir = shippedWidget()): { mounts: Mount[]; note?: string } {
  const mounts: Mount[] = [{ url, dir: widgetDir, cache: 'revalidate' }]
  const runtime = onnxRuntime()
  if ('missing' in runtime) return { mounts, note: `ONNX runtime files not served: ${runtime.missing}.` }
  mounts.push({ url, dir: runtime.dir, cache: 'revalidate', only: ONNX_RUNTIME_FILES })
  return { mounts }
}
