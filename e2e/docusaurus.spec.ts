import { describeFrameworkSite } from './framework-sites.ts'

describeFrameworkSite({
  name: 'docusaurus',
  contentDir: 'docs',
  command: ['@docusaurus/core', 'build', '{root}', '--no-minify'],
  outDir: 'build',
  start: '/guide/routing',
  rendered: '.theme-doc-markdown',
})
