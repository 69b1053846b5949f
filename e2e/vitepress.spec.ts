import { describeFrameworkSite } from './framework-sites.ts'

describeFrameworkSite({
  name: 'vitepress',
  contentDir: '.',
  command: ['node_modules/vitepress/bin/vitepress.js', 'build', '{root}'],
  outDir: '.vitepress/dist',
  page: '/guide/routing.html',
  rendered: '.vp-doc',
})
