/**
 * Where the widget's browser files (loader, panel, retrieval worker) come
 * from. An installed package ships them prebuilt in dist/widget/ (built at
 * `prepack`); a checkout of the repository rebuilds them from the sources
 * with Vite, so they always match the code. `docpilot widget` and
 * `docpilot dev` both ask here, so the two never disagree.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FROM_SOURCES, PACKAGE_ROOT } from './package-root.ts'

/** The prebuilt widget an installed package ships (and where a checkout builds it). */
export const SHIPPED_WIDGET_DIR = join(PACKAGE_ROOT, 'dist/widget')

type BuildWidget = (outDir: string, opts?: { minify?: boolean }) => Promise<string>

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
