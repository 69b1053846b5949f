/**
 * The panel as an ES module, for sites that bundle it instead of dropping in
 * the loader script:
 *
 *   import { createDocpilot } from 'docpilot/widget'
 *   const panel = createDocpilot({ indexUrl: '/docpilot/' })
 *   button.onclick = () => panel.open()
 *
 * The retrieval worker is loaded from `assetBase` (default: next to this file).
 */
import { DEFAULT_LABEL, type WidgetOptions } from './options.ts'
import { mountPanel, type PanelController } from './panel/mount.tsx'

export type { WidgetOptions, PanelController }
export { mountPanel }

export function createDocpilot(options: Partial<WidgetOptions> = {}): PanelController {
  const debugFlag = new URL(location.href).searchParams.get('dpdebug')
  return mountPanel({
    indexUrl: new URL(options.indexUrl ?? '/docpilot/', location.href).href.replace(/\/?$/, '/'),
    proxyBase: options.proxyBase ?? '',
    assetBase: options.assetBase ?? new URL('.', import.meta.url).href,
    placement: 'none',
    theme: options.theme ?? 'auto',
    label: options.label ?? DEFAULT_LABEL,
    // The module binds no hotkey: the site decides how the panel opens.
    hotkeys: [],
    searchUrl: options.searchUrl ?? '',
    prefetch: options.prefetch ?? true,
    conversation: options.conversation ?? 'tab',
    demoNotice: options.demoNotice ?? '',
    debug: options.debug ?? (debugFlag === '1' || debugFlag === 'true'),
  })
}
