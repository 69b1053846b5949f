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
import { completeOptions, type WidgetOptions } from './options.ts'
import { mountPanel, type PanelController } from './panel/mount.tsx'

export type { WidgetOptions, PanelController }
export { mountPanel }

export function createDocpilot(options: Partial<WidgetOptions> = {}): PanelController {
  return mountPanel(
    completeOptions(
      {
        ...options,
        // A given asset folder is the site's own URL, relative to the page.
        assetBase: options.assetBase === undefined ? undefined : new URL(options.assetBase, location.href).href,
        placement: 'none',
        // The module binds no hotkey: the site decides how the panel opens.
        hotkeys: [],
      },
      import.meta.url,
      location.href,
    ),
  )
}
