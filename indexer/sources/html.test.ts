import { describe, expect, it } from 'vitest'
import { parseHtmlPage } from './html.ts'
import { toSections } from '../sections.ts'

const page = (main: string, title = 'Site') => `<!doctype html><html><head><title>${title}</title></head><body><main>${main}</main></body></html>`

describe('built HTML: what is read of the content region', () => {
  it("leaves out a footer inside it, as Pagefind does (Starlight's previous/next links, a Docusaurus post's tags)", () => {
    const html =
      '<!doctype html><html><head><title>Routing</title></head><body><main data-pagefind-body><h1 id="_top">Routing</h1>' +
      '<p>Routes map paths to handlers.</p>' +
      '<footer><div class="pagination-links"><a href="/guide/" rel="next"><span>Next <span class="link-title">Guide</span></span></a></div></footer>' +
      '</main></body></html>'
    const text = parseHtmlPage(html).nodes.flatMap((n) => (n.type === 'text' ? [n.text] : []))
    expect(text).toEqual(['Routes map paths to handlers.'])
  })

  it("leaves out a nav wrapped in blocks that hold no other block (Material for MkDocs' sidebars inside <main>)", () => {
    // Shape of mkdocs-material 9.8.2 (MkDocs 1.6.1) output, trimmed: the sidebars sit in <main> before the <article>.
    const html =
      '<!doctype html><html><head><title>Installation - Lumen Docs</title></head><body><main class="md-main"><div class="md-main__inner md-grid">' +
      '<div class="md-sidebar md-sidebar--primary"><div class="md-sidebar__scrollwrap"><div class="md-sidebar__inner">' +
      '<nav class="md-nav md-nav--primary" aria-label="Navigation"><label class="md-nav__title" for="__drawer">Lumen Docs</label>' +
      '<ul class="md-nav__list"><li class="md-nav__item"><a href="../.." class="md-nav__link"><span class="md-ellipsis">Home</span></a></li></ul></nav>' +
      '</div></div></div>' +
      '<div class="md-content" data-md-component="content"><article class="md-content__inner md-typeset">' +
      '<h1 id="installation">Installation</h1><p>Install it with npm.</p>' +
      '<div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked="checked" id="__tabbed_1_1" name="__tabbed_1" type="radio" />' +
      '<div class="tabbed-labels"><label for="__tabbed_1_1">npm</label><label for="__tabbed_1_2">pnpm</label></div>' +
      '<div class="tabbed-content"><div class="tabbed-block"><p>npm install lumen</p></div></div></div>' +
      '</article></div></div></main></body></html>'
    const text = parseHtmlPage(html).nodes.flatMap((n) => (n.type === 'text' ? [n.text] : []))
    expect(text).toEqual(['Install it with npm.', 'npm', 'npm install lumen'])
  })
})

describe('built HTML: the content region', () => {
  it('reads an element with role="main" when the page has no <main> (Sphinx 9.0.4, alabaster 1.0.0), not the sidebar and footer beside it', () => {
    const html =
      '<!doctype html><html><head><title>Installation &#8212; Lumen documentation</title></head><body>' +
      '<div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">' +
      '<section id="installation"><h1>Installation<a class="headerlink" href="#installation" title="Link to this heading">¶</a></h1><p>Install it with pip.</p></section>' +
      '</div></div></div>' +
      '<div class="sphinxsidebar" role="navigation" aria-label="Main"><div class="sphinxsidebarwrapper"><h1 class="logo"><a href="index.html">Lumen</a></h1>' +
      '<h3>Navigation</h3><ul><li class="toctree-l1 current"><a class="current reference internal" href="#">Installation</a></li></ul></div></div></div>' +
      '<div class="footer">&#169;2026, Me. | Powered by <a href="https://www.sphinx-doc.org/">Sphinx 9.0.4</a></div></body></html>'
    const page = parseHtmlPage(html)
    expect(page.region).toBe('[role="main"]')
    expect(toSections(page, 'github', 'install').sections.map((s) => [s.trail, s.text])).toEqual([[['Installation'], 'Install it with pip.']])
  })
})

describe('built HTML headings', () => {
  it('drops generator badges (VitePress, Docusaurus, Starlight) and permalinks from heading text', () => {
    const html = page(
      '<h1>Config</h1>' +
        '<h2 id="base">base <span class="VPBadge tip">^1.9.0</span><a class="header-anchor" href="#base">​</a></h2><p>a</p>' +
        '<h2 id="lang">lang <span class="badge badge--secondary">beta</span></h2><p>b</p>' +
        '<h2 id="head">head <span class="sl-badge note small">New</span></h2><p>c</p>',
    )
    const { sections } = toSections(parseHtmlPage(html), 'github', 'config')
    expect(sections.map((s) => s.trail)).toEqual([['Config'], ['Config', 'base'], ['Config', 'lang'], ['Config', 'head']])
  })

  it("takes a heading's id from the <section> it opens when the heading has none (Sphinx 9.0.4), so citations land", () => {
    const html =
      '<!doctype html><html><head><title>Installation</title></head><body><div class="body" role="main">' +
      '<section id="installation"><h1>Installation<a class="headerlink" href="#installation" title="Link to this heading">¶</a></h1>' +
      '<section id="requirements-setup"><h2>Requirements &amp; Setup<a class="headerlink" href="#requirements-setup" title="Link to this heading">¶</a></h2>' +
      '<p>See the options.</p>' +
      '<section id="node-js-20"><h3>Node.js 20+<a class="headerlink" href="#node-js-20" title="Link to this heading">¶</a></h3><p>Nested.</p></section></section>' +
      '<section id="configuration-options">\n<span id="config-options"></span><h2>Configuration options<a class="headerlink" href="#configuration-options" title="Link to this heading">¶</a></h2>' +
      '<p>Ports.</p><h3>No section of its own</h3><p>Still here.</p></section>' +
      '</section></div></body></html>'
    const { sections, anchors } = toSections(parseHtmlPage(html), 'github', 'install')
    expect(sections.map((s) => [s.anchor, s.trail.at(-1)])).toEqual([
      ['', 'Installation'],
      ['requirements-setup', 'Requirements & Setup'],
      ['node-js-20', 'Node.js 20+'],
      ['configuration-options', 'Configuration options'],
      ['configuration-options', 'No section of its own'],
    ])
    expect(anchors).toEqual(['installation', 'requirements-setup', 'node-js-20', 'configuration-options'])
  })

  it("reads each of Sphinx's API entries as a section of its own, so a citation lands on the entry (Sphinx 9.0.4)", () => {
    const html =
      '<!doctype html><html><head><title>API reference</title></head><body><div class="body" role="main">' +
      '<section id="api-reference"><h1>API reference<a class="headerlink" href="#api-reference" title="Link to this heading">¶</a></h1>' +
      '<dl class="py function">\n<dt class="sig sig-object py" id="lumen.serve">\n<span class="sig-prename descclassname"><span class="pre">lumen.</span></span><span class="sig-name descname"><span class="pre">serve</span></span>' +
      '<span class="sig-paren">(</span><em class="sig-param"><span class="n"><span class="pre">app</span></span></em><span class="sig-paren">)</span><a class="headerlink" href="#lumen.serve" title="Link to this definition">¶</a></dt>\n' +
      '<dd><p>Serve <em>app</em>.</p></dd></dl>\n' +
      '<dl class="py class">\n<dt class="sig sig-object py" id="lumen.App">\n<span class="property"><span class="k"><span class="pre">class</span></span><span class="w"> </span></span><span class="sig-prename descclassname"><span class="pre">lumen.</span></span><span class="sig-name descname"><span class="pre">App</span></span><a class="headerlink" href="#lumen.App" title="Link to this definition">¶</a></dt>\n' +
      '<dd><p>The application object.</p>\n<dl class="py method">\n<dt class="sig sig-object py" id="lumen.App.get">\n<span class="sig-name descname"><span class="pre">get</span></span><span class="sig-paren">(</span><em class="sig-param"><span class="n"><span class="pre">path</span></span></em><span class="sig-paren">)</span><a class="headerlink" href="#lumen.App.get" title="Link to this definition">¶</a></dt>\n' +
      '<dd><p>Register a GET route.</p></dd></dl>\n</dd></dl>\n' +
      '<section id="routing"><h2>Routing<a class="headerlink" href="#routing" title="Link to this heading">¶</a></h2><p>Routes.</p></section>' +
      '</section></div></body></html>'
    const { sections } = toSections(parseHtmlPage(html), 'github', 'api')
    expect(sections.map((s) => [s.anchor, s.trail, s.text])).toEqual([
      ['', ['API reference'], ''],
      ['lumen.serve', ['API reference', 'lumen.serve()'], 'lumen.serve(app)\n\nServe app.'],
      ['lumen.App', ['API reference', 'lumen.App'], 'class lumen.App\n\nThe application object.'],
      ['lumen.App.get', ['API reference', 'lumen.App', 'get()'], 'get(path)\n\nRegister a GET route.'],
      ['routing', ['API reference', 'Routing'], 'Routes.'],
    ])
  })

  it('keeps the text of ordinary inline elements in a heading', () => {
    const { sections } = toSections(parseHtmlPage(page('<h1>API</h1><h2 id="x"><code>render()</code> and <em>hydrate</em></h2><p>t</p>')), 'github', 'api')
    expect(sections[1]!.trail).toEqual(['API', 'render() and hydrate'])
  })

  it('links a heading the site gave no id to its nearest enclosing heading that has one, never to a made-up anchor', () => {
    const html = page(
      '<h1>Guide</h1><p>intro</p>' +
        '<h2 id="setup">Setup</h2><p>a</p>' +
        '<h3>Without an id</h3><p>b</p>' +
        '<h2>Also without</h2><p>c</p>' +
        '<h3 id="deep">Deep</h3><p>d</p>',
    )
    const { sections, anchors } = toSections(parseHtmlPage(html), 'github', 'guide')
    expect(sections.map((s) => [s.anchor, s.trail.at(-1)])).toEqual([
      ['', 'Guide'],
      ['setup', 'Setup'],
      ['setup', 'Without an id'],
      ['', 'Also without'],
      ['deep', 'Deep'],
    ])
    expect(anchors).toEqual(['setup', 'deep'])
  })
})

describe('built HTML text', () => {
  const texts = (main: string) => parseHtmlPage(page(main)).nodes.flatMap((n) => (n.type === 'text' ? [n.text] : []))

  it("leaves out Sphinx's ¶ permalinks outside headings (Sphinx 9.0.4) and a footnote's ↩ (mkdocs-material 9.8.2)", () => {
    expect(
      texts(
        '<h1>API</h1><dl class="py function"><dt class="sig sig-object py" id="lumen.serve"><span class="sig-name descname"><span class="pre">serve</span></span>' +
          '<span class="sig-paren">(</span><em class="sig-param">app</em><span class="sig-paren">)</span><a class="headerlink" href="#lumen.serve" title="Link to this definition">¶</a></dt>' +
          '<dd><p>Serve <em>app</em>.</p></dd></dl>' +
          '<div class="code-block-caption"><span class="caption-text">app.py</span><a class="headerlink" href="#id1" title="Link to this code">¶</a></div>' +
          '<div class="footnote"><hr /><ol><li id="fn:1"><p>Older versions lack <code>fetch</code>.&#160;<a class="footnote-backref" href="#fnref:1" title="Jump back to footnote 1 in the text">&#8617;</a></p></li></ol></div>',
      ),
    ).toEqual(['serve(app)', 'Serve app.', 'app.py', 'Older versions lack fetch.'])
  })

  it("leaves out Material for MkDocs' code annotation markers, which its script shows as buttons, and keeps other comments (mkdocs-material 9.8.2)", () => {
    expect(
      texts(
        '<h1>Setup</h1><div class="highlight"><span class="filename">app.ts</span><pre><span></span><code>' +
          '<a id="__codelineno-2-1" name="__codelineno-2-1" href="#__codelineno-2-1"></a><span class="kd">const</span><span class="w"> </span><span class="nx">app</span><span class="w"> </span><span class="o">=</span><span class="w"> </span><span class="ow">new</span><span class="w"> </span><span class="nx">Lumen</span><span class="p">()</span><span class="w"> </span><span class="c1">// (1)!</span>\n' +
          '<a id="__codelineno-2-2" name="__codelineno-2-2" href="#__codelineno-2-2"></a><span class="nx">app</span><span class="p">.</span><span class="nx">listen</span><span class="p">()</span><span class="w"> </span><span class="c1">// see (2)</span>\n' +
          '</code></pre></div><ol><li>The app object holds your routes.</li></ol>',
      ),
    ).toEqual(['app.ts', 'const app = new Lumen() \napp.listen() // see (2)', 'The app object holds your routes.'])
  })

  it("reads each of Material for MkDocs' content tabs under its name (mkdocs-material 9.8.2, pymdownx.tabbed alternate style)", () => {
    expect(
      texts(
        '<h1>Install</h1><div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked="checked" id="__tabbed_1_1" name="__tabbed_1" type="radio" /><input id="__tabbed_1_2" name="__tabbed_1" type="radio" />' +
          '<div class="tabbed-labels"><label for="__tabbed_1_1">macOS</label><label for="__tabbed_1_2">Windows</label></div>\n<div class="tabbed-content">\n' +
          '<div class="tabbed-block">\n<p>Run the package.</p>\n</div>\n' +
          '<div class="tabbed-block">\n<div class="highlight"><pre><span></span><code><a id="__codelineno-1-1" name="__codelineno-1-1" href="#__codelineno-1-1"></a>winget install lumen\n</code></pre></div>\n</div>\n</div>\n</div>',
      ),
    ).toEqual(['macOS', 'Run the package.', 'Windows', 'winget install lumen'])
  })

  it('leaves out the number of a footnote reference, which would join the word before it (mkdocs-material 9.8.2, Sphinx 9.0.4, remark-gfm)', () => {
    expect(
      texts(
        '<h1>Notes</h1><p>Lumen needs Node 20 or later<sup id="fnref:1"><a class="footnote-ref" href="#fn:1">1</a></sup>.</p>' +
          '<p>Needs Python<a class="footnote-reference brackets" href="#id3" id="id1" role="doc-noteref"><span class="fn-bracket">[</span>1<span class="fn-bracket">]</span></a> too.</p>' +
          '<p>And Deno<sup><a href="#user-content-fn-1" id="user-content-fnref-1" data-footnote-ref="" aria-describedby="footnote-label">1</a></sup>.</p>',
      ),
    ).toEqual(['Lumen needs Node 20 or later.', 'Needs Python too.', 'And Deno.'])
  })

  it("reads code with Pygments' line numbers as the code alone, its lines kept (Sphinx 9.0.4 inline, mkdocs-material 9.8.2 table)", () => {
    expect(
      texts(
        '<h1>Code</h1><div class="highlight"><pre><span></span><span class="linenos">1</span><span class="kn">from</span> <span class="nn">lumen</span> <span class="kn">import</span> <span class="n">App</span>\n' +
          '<span class="linenos">2</span><span class="n">app</span> <span class="o">=</span> <span class="n">App</span><span class="p">()</span>\n</pre></div>' +
          '<div class="highlight"><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre><span></span><span class="normal"><a href="#__codelineno-0-1">1</a></span>\n' +
          '<span class="normal"><a href="#__codelineno-0-2">2</a></span></pre></div></td><td class="code"><div><pre><span></span><code><a id="__codelineno-0-1" name="__codelineno-0-1"></a><span class="kn">import</span><span class="w"> </span><span class="nn">lumen</span>\n' +
          '<a id="__codelineno-0-2" name="__codelineno-0-2"></a><span class="n">app</span> <span class="o">=</span> <span class="n">lumen</span><span class="o">.</span><span class="n">App</span><span class="p">()</span>\n</code></pre></div></td></tr></table></div>',
      ),
    ).toEqual(['from lumen import App\napp = App()', 'import lumen\napp = lumen.App()'])
  })

  it('reads a paragraph and a list item as one line each, as a browser wraps them, whatever the source line breaks', () => {
    expect(texts('<h1>T</h1><p>The code blocks of a\n<code>&lt;TabItem&gt;</code>, the text\n  of an aside.</p><ul><li>A project made by\nnpm init -y is CommonJS.</li><li>Second<br>item</li></ul>')).toEqual([
      'The code blocks of a <TabItem>, the text of an aside.',
      'A project made by npm init -y is CommonJS.',
      'Second item',
    ])
  })

  it("keeps the shape of blocks inside a component or an inline element (Starlight's tabs, an island)", () => {
    const tabs =
      '<starlight-tabs><ul role="tablist"><li><a role="tab">npm</a></li><li><a role="tab">pnpm</a></li></ul>' +
      '<div role="tabpanel"><p>Use npm\nlike this.</p><div class="expressive-code"><figure><pre><code><div class="ec-line">npm create astro@latest</div><div class="ec-line">cd my-project</div></code></pre></figure></div></div></starlight-tabs>' +
      '<astro-island><pre><code>npm run dev\nnpm run build</code></pre></astro-island>'
    expect(texts(tabs)).toEqual(['npm', 'pnpm', 'Use npm like this.', 'npm create astro@latest\ncd my-project', 'npm run dev\nnpm run build'])
  })

  it("reads a table's caption, and a table inside a cell as that cell's text", () => {
    expect(texts('<table><caption>Ports\nin use</caption><tr><td>outer</td><td><table><tr><td>in1</td><td>in2</td></tr></table></td></tr><tr><td>a</td><td>b</td></tr></table>')).toEqual([
      'Ports in use',
      'outer | in1 in2\na | b',
    ])
  })

  it('keeps code lines (also inside a wrapper), and writes a table as rows of cells joined by " | "', () => {
    expect(texts('<div class="language-sh"><span class="lang">sh</span><pre><code>npm init -y\nnpx docpilot index</code></pre></div><table><thead><tr><th>Flag</th><th>Meaning</th></tr></thead><tbody><tr><td><code>--out</code></td><td>where the\nindex goes</td></tr></tbody></table>')).toEqual([
      'sh',
      'npm init -y\nnpx docpilot index',
      'Flag | Meaning\n--out | where the index goes',
    ])
  })
})

describe('built HTML: a page that asks to be kept out of search', () => {
  const withHead = (head: string, body = '<main><h1 id="a">A</h1><p>Words to index.</p></main>') =>
    `<!doctype html><html><head><title>A</title>${head}</head><body>${body}</body></html>`

  it('is marked by a robots meta with noindex or none, written any way round, or a docpilot meta', () => {
    for (const head of [
      '<meta name="robots" content="noindex">',
      '<META NAME="Robots" CONTENT="NoIndex">',
      '<meta name="robots" content="noindex, nofollow">',
      '<meta name="robots" content="nofollow,noindex">',
      '<meta name="robots" content="none">',
      '<meta content="noindex" name="robots" />',
      '<meta name="docpilot" content="noindex">',
    ]) {
      expect(parseHtmlPage(withHead(head)).noindex, head).toBe(true)
    }
  })

  it('is not marked by other robots words, other meta names, or noindex in the page text', () => {
    for (const head of [
      '',
      '<meta name="robots" content="nofollow">',
      '<meta name="robots" content="index, follow">',
      '<meta name="robots" content="max-snippet:-1, noimageindex">',
      '<meta name="description" content="noindex">',
      '<meta property="og:title" content="none">',
    ]) {
      expect(parseHtmlPage(withHead(head, '<main><h1>A</h1><p>Add &lt;meta name="robots" content="noindex"&gt; to hide a page.</p></main>')).noindex, head).toBeUndefined()
    }
  })

  it("marks Sphinx's search page (its robots noindex) and its generated indexes, which have none (Sphinx 9.0.4, alabaster 1.0.0)", () => {
    // Trimmed from sphinx-build 9.0.4 output: search.html, genindex.html, py-modindex.html.
    const sphinx = (head: string, body: string) =>
      `<!DOCTYPE html><html lang="en" data-content_root="./"><head><meta charset="utf-8" /><title>${head}</title>` +
      `<link rel="index" title="Index" href="genindex.html" />${head === 'Search &#8212; Lumen  documentation' ? '<script src="searchindex.js" defer="defer"></script><meta name="robots" content="noindex" />' : ''}</head>` +
      `<body><div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">${body}</div></div></div></div></body></html>`
    const search = sphinx(
      'Search &#8212; Lumen  documentation',
      '<h1 id="search-documentation">Search</h1><noscript><div class="admonition warning"><p>Please activate JavaScript to enable the search functionality.</p></div></noscript>' +
        '<p>Searching for multiple words only shows matches that contain all words.</p><form action="" method="get"><input type="text" name="q" /></form><div id="search-results"></div>',
    )
    const genindex = sphinx(
      'Index &#8212; Lumen  documentation',
      '<h1 id="index">Index</h1><div class="genindex-jumpbox"><a href="#L"><strong>L</strong></a></div><h2 id="L">L</h2>' +
        '<table style="width: 100%" class="indextable genindextable"><tr><td style="width: 33%; vertical-align: top;"><ul><li>lumen<ul><li><a href="index.html#module-lumen">module</a></li></ul></li>' +
        '<li><a href="index.html#lumen.serve">lumen.serve()</a></li></ul></td></tr></table>',
    )
    const modindex = sphinx(
      'Python Module Index &#8212; Lumen  documentation',
      '<h1>Python Module Index</h1><div class="modindex-jumpbox"><a href="#cap-l"><strong>l</strong></a></div>' +
        '<table class="indextable modindextable"><tr class="cap" id="cap-l"><td></td><td><strong>l</strong></td><td></td></tr>' +
        '<tr><td></td><td><a href="index.html#module-lumen"><code class="xref">lumen</code></a></td><td><em></em></td></tr></table>',
    )
    const doc = sphinx('Lumen &#8212; Lumen  documentation', '<section id="lumen"><h1>Lumen</h1><p>Serve things.</p></section>')
    expect([search, genindex, modindex, doc].map((html) => parseHtmlPage(html).noindex)).toEqual([true, true, true, undefined])
  })
})
