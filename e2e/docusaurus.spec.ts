import { FRAMEWORK_SITES } from './framework-build.ts'
import { describeFrameworkSite } from './framework-sites.ts'

describeFrameworkSite({ ...FRAMEWORK_SITES.docusaurus, start: '/guide/routing', rendered: '.theme-doc-markdown' })
