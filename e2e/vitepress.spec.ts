import { FRAMEWORK_SITES } from './framework-build.ts'
import { describeFrameworkSite } from './framework-sites.ts'

describeFrameworkSite({ ...FRAMEWORK_SITES.vitepress, start: '/guide/routing.html', rendered: '.vp-doc' })
