import { dialog, expect, test } from './harness.ts'
import { FRAMEWORK_SITES } from './framework-build.ts'
import { describeFrameworkSite } from './framework-sites.ts'

const site = describeFrameworkSite({ ...FRAMEWORK_SITES.starlight, start: '/guide/routing/', rendered: '[data-pagefind-body]' })

test("starlight: Pagefind search still works beside the panel, and keeps Ctrl+K; '/' opens the panel", async ({ page }) => {
  await page.goto(`${site.url()}/guide/routing/`)
  // Starlight mounts Pagefind's UI into its (closed) dialog once the browser is idle, after load.
  await expect(page.locator('#starlight__search .pagefind-ui')).toBeAttached()
  const search = page.getByRole('dialog', { name: 'Search' })
  await page.keyboard.press('Control+k')
  await expect(search).toBeVisible()
  await expect(dialog(page)).toBeHidden()
  await search.getByRole('textbox').fill('middleware')
  const result = search.locator('.pagefind-ui__result-link').first()
  await expect(result).toBeVisible()
  await expect(result).toHaveAttribute('href', /\/guide\/middleware\//)
  await page.keyboard.press('Escape')
  await expect(search).toBeHidden()
  await page.keyboard.press('/')
  await expect(dialog(page)).toBeVisible()
  await expect(search).toBeHidden()
})
