/**
 * The demo site `docpilot dev` serves when the docs are Markdown sources: one
 * page per source page, rebuilt from the index's own chunk records so every
 * heading id is exactly the anchor a citation links to. Docs text is shown as
 * escaped text: the demo must not run anything a docs page contains.
 */
import type { ChunkRecord } from '../core/index/format.ts'
import { textBlocks, type Block } from '../core/text/blocks.ts'

export interface DemoPage {
  url: string
  title: string
  path: string
  sections: { anchor: string; heading: string; depth: number; paragraphs: string[] }[]
}

export interface PageShell {
  /** Where the widget files are served, e.g. '/docpilot-assets/'. */
  assetBase: string
  /** Where the index is served, e.g. '/docpilot/'. */
  indexUrl: string
  /** Shown when the answers come from fake providers. */
  demoNotice?: string
  /** Extra data- attributes for the loader script. */
  scriptData?: Record<string, string>
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Groups chunk records into pages and sections (chunks of one section share an anchor). */
export function demoPages(chunks: readonly ChunkRecord[]): DemoPage[] {
  const pages = new Map<string, DemoPage>()
  for (const chunk of chunks) {
    let page = pages.get(chunk.url)
    if (!page) {
      page = { url: chunk.url, title: chunk.title, path: chunk.path, sections: [] }
      pages.set(chunk.url, page)
    }
    let section = page.sections.find((s) => s.anchor === chunk.anchor)
    if (!section) {
      section = {
        anchor: chunk.anchor,
        heading: chunk.trail[chunk.trail.length - 1] ?? chunk.title,
        depth: Math.min(Math.max(chunk.trail.length, 2), 6),
        paragraphs: [],
      }
      page.sections.push(section)
    }
    // Overlapping windows repeat text; keep each paragraph once.
    for (const para of chunk.text.split(/\n{2,}/)) {
      const p = para.trim()
      if (p && !section.paragraphs.includes(p)) section.paragraphs.push(p)
    }
  }
  return [...pages.values()].sort((a, b) => a.url.localeCompare(b.url))
}

function scriptTag(shell: PageShell): string {
  // The panel repeats the demo notice inside the dialog, where the page's banner is hidden behind the backdrop.
  const data = { index: shell.indexUrl, ...(shell.demoNotice ? { demo: shell.demoNotice } : {}), ...shell.scriptData }
  const attrs = Object.entries(data)
    .map(([k, v]) => ` data-${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${escapeHtml(v)}"`)
    .join('')
  return `<script src="${escapeHtml(shell.assetBase)}docpilot.js"${attrs} defer></script>`
}

function layout(title: string, body: string, pages: readonly DemoPage[], shell: PageShell): string {
  const nav = pages.map((p) => `<li><a href="${escapeHtml(p.url)}">${escapeHtml(p.title)}</a></li>`).join('')
  const notice = shell.demoNotice ? `<p class="demo-notice" role="note">${escapeHtml(shell.demoNotice)}</p>` : ''
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · docpilot demo</title>
<link rel="stylesheet" href="${escapeHtml(shell.assetBase)}demo.css">
${scriptTag(shell)}
</head>
<body>
<header class="site-header"><a href="/" class="brand">docpilot demo</a><button type="button" class="ask" data-docpilot-open>Ask the docs</button></header>
${notice}
<div class="site">
<nav aria-label="Pages"><ul>${nav}</ul></nav>
<main id="main">${body}</main>
</div>
</body>
</html>
`
}

export function renderPage(page: DemoPage, pages: readonly DemoPage[], shell: PageShell): string {
  const sections = page.sections
    .map((s) => {
      const level = s.depth
      const heading = s.anchor
        ? `<h${level} id="${escapeHtml(s.anchor)}">${escapeHtml(s.heading)}</h${level}>`
        : ''
      const body = textBlocks(s.paragraphs.join('\n\n')).map(blockHtml).join('\n')
      return `<section>${heading}\n${body}</section>`
    })
    .join('\n')
  return layout(page.title, `<h1>${escapeHtml(page.title)}</h1>\n${sections}`, pages, shell)
}

/** A block of a chunk's text as the panel shows it (core/text/blocks.ts reads code and tables back). */
function blockHtml(block: Block): string {
  if (block.kind === 'code') return `<pre><code>${escapeHtml(block.text)}</code></pre>`
  if (block.kind === 'prose') return `<p>${escapeHtml(block.text)}</p>`
  const [head, ...rows] = block.rows
  const cells = (row: string[], tag: 'th' | 'td') => `<tr>${row.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`
  return `<div class="table"><table><thead>${cells(head!, 'th')}</thead><tbody>${rows.map((r) => cells(r, 'td')).join('')}</tbody></table></div>`
}

export function renderHome(pages: readonly DemoPage[], shell: PageShell): string {
  const list = pages.map((p) => `<li><a href="${escapeHtml(p.url)}">${escapeHtml(p.title)}</a> <small>${escapeHtml(p.path)}</small></li>`).join('\n')
  const body = `<h1>Ask these docs</h1>
<p>Press <kbd>Ctrl</kbd>+<kbd>K</kbd> (<kbd>⌘</kbd><kbd>K</kbd> on a Mac) or <kbd>/</kbd>, or use the button, and ask a question. Answers cite the sections below.</p>
<ul class="pages">${list}</ul>`
  return layout('Home', body, pages, shell)
}

/** Injects the loader script into a built HTML page (site mode). */
export function injectLoader(html: string, shell: PageShell): string {
  const tag = scriptTag(shell)
  const notice = shell.demoNotice ? `<p class="docpilot-demo-notice" role="note">${escapeHtml(shell.demoNotice)}</p>` : ''
  const withScript = /<\/head>/i.test(html) ? html.replace(/<\/head>/i, `${tag}\n</head>`) : tag + html
  return notice && /<body[^>]*>/i.test(withScript) ? withScript.replace(/<body[^>]*>/i, (m) => `${m}\n${notice}`) : withScript
}

export const DEMO_CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --muted: #57606a; --line: #d0d7de; --accent: #1d4ed8; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9da7b3; --line: #3d444d; --accent: #4f8cff; } }
body { margin: 0; font: 16px/1.6 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
.site-header { display: flex; align-items: center; justify-content: space-between; padding: 12px 24px; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; text-decoration: none; }
.ask { font: inherit; padding: 6px 12px; border-radius: 8px; border: 1px solid var(--line); background: transparent; color: var(--fg); cursor: pointer; }
.demo-notice, .docpilot-demo-notice { margin: 0; padding: 8px 24px; background: #fef3c7; color: #713f12; border-bottom: 1px solid #f59e0b; }
.site { display: grid; grid-template-columns: 240px 1fr; gap: 32px; max-width: 1100px; margin: 0 auto; padding: 24px; }
nav ul { list-style: none; padding: 0; margin: 0; } nav li { margin: 4px 0; }
main { min-width: 0; overflow-wrap: anywhere; } pre { overflow-x: auto; background: rgba(127,127,127,.12); padding: 12px; border-radius: 8px; white-space: pre-wrap; }
.table { overflow-x: auto; } table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
section { scroll-margin-top: 16px; } :target { background: rgba(245, 158, 11, .18); }
small { color: var(--muted); }
@media (max-width: 720px) { .site { grid-template-columns: 1fr; } nav { display: none; } }
`
