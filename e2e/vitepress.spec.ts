import { describeFrameworkSite } from './framework-sites.ts'

describeFrameworkSite({
  name: 'vitepress',
  contentDir: '.',
  command: ['vitepress', 'build', '{root}'],
  outDir: '.vitepress/dist',
  start: '/guide/routing.html',
  rendered: '.vp-doc',
})
