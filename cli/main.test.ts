import { execFile, spawn as spawnChild } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FORMAT_VERSION } from '../core/index/format.ts'
import { buildProgram } from './main.ts'
import { runMain } from './test-helpers.ts'

const BIN = resolve(import.meta.dirname, '../bin/docpilot.cjs')

let dir: string
let docs: string

const PAGES: Record<string, string> = {
  'guide/cookies.md': '# Cookie Helper\n\nHelpers for cookies.\n\n## Signed cookies\n\nUse `setSignedCookie` with a secret so nobody can tamper with the value.\n\n## Deleting cookies\n\nCall `deleteCookie` to remove one.\n',
  'guide/bun.md': '# Bun\n\n## Change port number\n\nExport `port` to change which port the Bun server listens on.\n',
  'api/routing.mdx': '---\ntitle: Routing\n---\nimport X from "./x"\n\n## Path parameters\n\nRead a path parameter with <code>c.req.param()</code>.\n',
}

async function writeDocs(root: string, pages: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(pages)) {
    await mkdir(join(root, path, '..'), { recursive: true })
    await writeFile(join(root, path), text)
  }
}

/** Runs main in-process with captured output. */
const run = (argv: string[], cwd = dir, env: Record<string, string | undefined> = {}) => runMain(argv, cwd, env)

/** Runs the real bin as a child process. */
async function spawn(argv: string[], cwd = dir) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...argv], { cwd })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-cli-'))
  docs = join(dir, 'docs')
  await writeDocs(docs, PAGES)
})
afterAll(() => rm(dir, { recursive: true, force: true }))

// Generous limits: several people share two cores, and a cold start compiles TypeScript.
describe.concurrent('docpilot (real process)', { timeout: 120_000 }, () => {
  it('exits 0 for --help and shows examples', async () => {
    const r = await spawn(['index', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Examples:')
    expect(r.stdout).toContain('--include')
  })

  it('exits 2 with the help for no arguments and for an unknown command', async () => {
    const none = await spawn([])
    expect(none.code).toBe(2)
    expect(none.stdout + none.stderr).toContain('Examples:')
    const unknown = await spawn(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("unknown command 'frobnicate'")
  })

  it("points other tools' command names at docpilot's: serve and start at dev and preview, build at index", async () => {
    for (const [word, meant] of [['serve', '`docpilot dev ./docs`'], ['start', '`docpilot preview dist`'], ['build', '`docpilot index`'], ['search', '`docpilot query']]) {
      const r = await run([word!, '--help'])
      expect(r.code, word).toBe(2)
      expect(r.stderr, word).toContain(`unknown command '${word}': did you mean`)
      expect(r.stderr, word).toContain(meant)
    }
  })

  it('names a misspelt command and the nearest one when help is asked for it, either way round', async () => {
    for (const argv of [['help', 'indx'], ['indx', '--help'], ['indx', '-h', './docs']]) {
      const r = await run(argv)
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.stderr, argv.join(' ')).toContain("unknown command 'indx'\n(Did you mean index?)")
    }
    expect((await run(['help', 'index'])).stdout).toContain('Usage: docpilot index')
    expect((await run(['help'])).code).toBe(0)
  })

  it('exits 2 on an unknown option', async () => {
    const r = await spawn(['query', '--bogus'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("unknown option '--bogus'")
  })

  it('exits 1 with one clear line for a missing docs folder', async () => {
    const r = await spawn(['index', 'no-such-docs'])
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toMatch(/no-such-docs does not exist/)
    expect(r.stderr).not.toContain('    at ')
  })
})

describe('--help', () => {
  it('--version prints the package version and exits 0', async () => {
    const r = await run(['--version'])
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })

  it('every command exits 0 and shows examples', async () => {
    const program = await buildProgram({ cwd: dir, env: {}, stdout: () => {}, stderr: () => {}, stderrIsTTY: false, version: '0' })
    const names = program.commands.map((c) => c.name())
    expect(names).toEqual(expect.arrayContaining(['index', 'query', 'eval', 'dev', 'doctor', 'proxy']))
    for (const name of ['', ...names]) {
      const r = await run(name ? [name, '--help'] : ['--help'])
      expect(r.code, `docpilot ${name} --help`).toBe(0)
      expect(r.stdout, `docpilot ${name} --help`).toMatch(/Examples:\n {2}\$ .*docpilot /)
    }
  })

  it('says what a port of 0 does wherever a port is taken, and eval --misses what --k does to it', async () => {
    const program = await buildProgram({ cwd: dir, env: {}, stdout: () => {}, stderr: () => {}, stderrIsTTY: false, version: '0' })
    const withPort = program.commands.filter((c) => c.options.some((o) => o.long === '--port')).map((c) => c.name())
    expect(withPort).toEqual(expect.arrayContaining(['dev', 'preview', 'proxy']))
    for (const name of withPort) expect((await run([name, '--help'])).stdout, `docpilot ${name} --help`).toContain('(0: any free port)')
    const evalHelp = (await run(['eval', '--help'])).stdout.replace(/\s+/g, ' ')
    expect(evalHelp).toContain('not found in the top 8 (the top --k, when that is fewer)')
    // An example a stranger can follow: no folder of docpilot's own development next to their project.
    expect(evalHelp).not.toContain('shared/eval')
  })

  it("reads each command's description as paragraphs filled to the width, not lines broken where the source broke them", async () => {
    const program = await buildProgram({ cwd: dir, env: {}, stdout: () => {}, stderr: () => {}, stderrIsTTY: false, version: '0' })
    for (const name of program.commands.map((c) => c.name())) {
      const help = (await run([name, '--help'])).stdout
      // The description: from after the usage line to the first section heading.
      const description = help.split('\n\n')[1]!
      if (/^(Arguments|Options):/.test(description)) continue
      const lines = description.split('\n')
      // Every line but a paragraph's last fills most of the 80 columns (a line that starts a list item may end short).
      lines.slice(0, -1).forEach((line, i) => {
        if (/^\s*[-*•]/.test(lines[i + 1]!) || /^\s/.test(lines[i + 1]!)) return
        expect(line.length, `docpilot ${name} --help: "${line}"`).toBeGreaterThan(55)
      })
    }
  })
})

describe('docpilot index', { timeout: 120_000 }, () => {
  it('writes an index and a summary with files, chunks, bytes and time', async () => {
    const r = await run(['index', 'docs', '--out', 'idx'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/Indexed 3 files into \d+ chunks in [\d.]+ s/)
    expect(r.stdout).toMatch(/KB raw, [\d.]+ KB gzip/)
    expect(await readdir(join(dir, 'idx'))).toContain('manifest.json')
  })

  it("points to docpilot's own docs at a path that opens from where it ran, not to a docs/ of the owner's", async () => {
    const r = await run(['index', 'docs', '--out', 'idx-docs-link'])
    const page = /serve that folder at urls\.base \(([^)]+)\)/.exec(r.stdout)?.[1]
    expect(page, r.stdout).toMatch(/agents\.md$/)
    expect(existsSync(resolve(dir, page!)), page).toBe(true)
  })

  it('writes byte-identical output for the same docs', async () => {
    await run(['index', 'docs', '--out', 'det-a'])
    await run(['index', 'docs', '--out', 'det-b'])
    const files = async (out: string) => (await readdir(join(dir, out), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(join(dir, out).length + 1)).sort()
    const a = await files('det-a')
    expect(await files('det-b')).toEqual(a)
    expect(a.length).toBeGreaterThan(3)
    // Compared by digest: deep equality over a multi-megabyte model file is slow enough to time out (and its diff to exhaust memory).
    const digest = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex')
    for (const name of a) expect(await digest(join(dir, 'det-b', name)), name).toBe(await digest(join(dir, 'det-a', name)))
  })

  it('honours SOURCE_DATE_EPOCH for createdAt', async () => {
    await run(['index', 'docs', '--out', 'dated'], dir, { SOURCE_DATE_EPOCH: '1700000000' })
    const manifest = JSON.parse(await readFile(join(dir, 'dated', 'manifest.json'), 'utf8'))
    expect(manifest.createdAt).toBe('2023-11-14T22:13:20.000Z')
  })

  it('keeps paths relative to the folder named, narrowing with --include', async () => {
    const r = await run(['index', '.', '--include', 'docs/guide/**/*.md', '--out', 'narrow'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/Indexed 2 files/)
    const q = await run(['query', '--index', 'narrow', '--json', 'signed', 'cookies'])
    expect(JSON.parse(q.stdout).results[0].path).toBe('docs/guide/cookies.md')
  })

  it('fails on an empty docs folder and on a folder with no pages', async () => {
    await mkdir(join(dir, 'empty'))
    const empty = await run(['index', 'empty', '--out', 'x1'])
    expect(empty.code).toBe(1)
    expect(empty.stderr).toMatch(/is empty/)
    await writeDocs(join(dir, 'nopages'), { 'notes.txt': 'hello' })
    const none = await run(['index', 'nopages', '--out', 'x2'])
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/No files in .* match include/)
  })

  it('warns about a malformed file by name and indexes the rest', async () => {
    await writeDocs(join(dir, 'broken'), { ...PAGES, 'bad.md': '---\ntitle: [unclosed\n---\n\n# Bad\n\nBody.\n' })
    const r = await run(['index', 'broken', '--out', 'broken-idx'])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/warning: bad\.md: frontmatter is not valid YAML/)
    expect(r.stdout).toMatch(/Indexed \d+ files/)
  })

  it('rejects an invalid config before doing anything', async () => {
    const cfgDir = join(dir, 'with-config')
    await writeDocs(cfgDir, { 'docpilot.config.json': JSON.stringify({ anchors: { slugger: 'gh' }, chat: { chian: 'auto' } }) })
    const r = await run(['index', docs, '--out', join(cfgDir, 'idx')], cfgDir)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`Invalid config docpilot.config.json: anchors.slugger must be one of 'github', 'vitepress', 'starlight' or 'docusaurus' (got "gh")`)
    expect(r.stderr).toContain('Invalid config docpilot.config.json: chat.chian is not a known setting; did you mean chat.chain?')
    expect(await readdir(cfgDir)).toEqual(['docpilot.config.json'])
  })

  it('asks for a folder when none is given (usage error)', async () => {
    const r = await run(['index'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/name the docs folder/)
  })

  it('asks --site for the built site folder and docs.site, even where docs.dir is set', async () => {
    const cfgDir = join(dir, 'site-flag')
    await mkdir(cfgDir)
    await writeFile(join(cfgDir, 'docpilot.config.json'), JSON.stringify({ docs: { dir: 'docs' } }))
    const r = await run(['index', '--site'], cfgDir)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('name the built site folder, e.g. `docpilot index --site dist`, or set docs.site in docpilot.config.json')
  })
})

describe('docpilot query and eval', () => {
  beforeAll(async () => {
    await run(['index', 'docs', '--out', 'qidx'])
    await writeFile(
      join(dir, 'q.jsonl'),
      [
        { id: 'a', q: 'How can I stop users from editing cookie values?', kind: 'paraphrase', gold: [{ path: 'guide/cookies.md', trail: ['Cookie Helper', 'Signed cookies'] }] },
        { id: 'b', q: 'c.req.param', kind: 'keyword', gold: [{ path: 'api/routing.mdx', trail: ['Routing'] }] },
        { id: 'c', q: 'sourdough bread recipe', kind: 'off-topic', gold: [] },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    )
  })

  it('writes one contract line per question', async () => {
    const r = await run(['query', '--index', 'qidx', '--questions', 'q.jsonl', '--k', '2'])
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => l.id)).toEqual(['a', 'b', 'c'])
    expect(Object.keys(lines[0])).toEqual(['id', 'mode', 'gate', 'results'])
    expect(Object.keys(lines[0].gate)).toEqual(['pass', 'score'])
    expect(Object.keys(lines[0].results[0])).toEqual(['path', 'anchor', 'url', 'title', 'trail', 'score'])
    expect(lines[0].results[0]).toMatchObject({ path: 'guide/cookies.md', anchor: 'signed-cookies', url: '/guide/cookies#signed-cookies', trail: ['Cookie Helper', 'Signed cookies'] })
    expect(lines[0].results.length).toBeLessThanOrEqual(2)
    expect(lines[2].gate.pass).toBe(false)
  })

  it('says which channels ran: hybrid by default, lexical with --lexical-only', async () => {
    const hybrid = await run(['query', '--index', 'qidx', '--questions', 'q.jsonl'])
    const lexical = await run(['query', '--index', 'qidx', '--questions', 'q.jsonl', '--lexical-only'])
    const modes = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l).mode)
    expect(modes(hybrid.stdout)).toEqual(['hybrid', 'hybrid', 'hybrid'])
    expect(modes(lexical.stdout)).toEqual(['lexical', 'lexical', 'lexical'])
    expect(hybrid.stderr).toBe('')
  })

  it('exits 2 for a question together with --questions, 1 naming the line of a malformed question', async () => {
    const both = await run(['query', '--index', 'qidx', '--questions', 'q.jsonl', 'cookies'])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('give either a question or --questions FILE, not both')
    await writeFile(join(dir, 'bad.jsonl'), '{"id":"1","q":"cookies"}\n{"id":"2"\n')
    const bad = await run(['query', '--index', 'qidx', '--questions', 'bad.jsonl'])
    expect(bad.code).toBe(1)
    // The line query reads, not eval's: a query file has no "kind" or "gold".
    expect(bad.stderr).toMatch(/^bad\.jsonl:2: not valid JSON\. Each line must be one object \{"id","q"\}\./)
    expect(bad.stdout).toBe('')
  })

  it('stops quietly with exit 0 when the reader closes the pipe early (| head)', async () => {
    await writeFile(join(dir, 'many.jsonl'), Array.from({ length: 400 }, (_, i) => JSON.stringify({ id: String(i), q: 'signed cookies' })).join('\n'))
    const child = spawnChild(process.execPath, [BIN, 'query', '--index', 'qidx', '--questions', 'many.jsonl', '--lexical-only'], { cwd: dir })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()))
    child.stdout.once('data', () => child.stdout.destroy())
    const code = await new Promise<number | null>((done) => child.on('close', done))
    expect(stderr).not.toContain('EPIPE')
    expect(code).toBe(0)
  }, 120_000)

  it('writes the whole index when the reader of its report closes the pipe early (2>&1 | head)', async () => {
    const out = join(dir, 'piped-index')
    const child = spawnChild(process.execPath, [BIN, 'index', 'docs', '--out', out], { cwd: dir })
    // Both streams closed at their first line, as `2>&1 | head -1` does.
    for (const stream of [child.stdout, child.stderr]) stream.once('data', () => stream.destroy())
    const code = await new Promise<number | null>((done) => child.on('close', done))
    expect(code).toBe(0)
    expect(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'))).toMatchObject({ corpus: { chunks: expect.any(Number) } })
  }, 120_000)

  it('on Ctrl+C says what is left, exits 130, and the next run finishes (a first run as well as a re-index)', async () => {
    const many = join(dir, 'many-docs')
    await writeDocs(many, Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`p${i}.md`, `# Page ${i}\n\n${'Some words about routing and cookies. '.repeat(40)}\n`])))
    /** Runs `index many-docs --out <out>` and sends Ctrl+C at its first progress line (the run under way, past its config). */
    const interrupt = async (out: string) => {
      const child = spawnChild(process.execPath, [BIN, 'index', 'many-docs', '--out', out], { cwd: dir })
      let stderr = ''
      let sent = false
      child.stderr.on('data', (d: Buffer) => {
        stderr += String(d)
        if (sent || !stderr.includes('indexing')) return
        sent = true
        child.kill('SIGINT')
      })
      const code = await new Promise<number | null>((done) => child.on('close', done))
      return { code, stderr }
    }

    const fresh = join(dir, 'first-interrupted')
    const first = await interrupt(fresh)
    expect(first.code, first.stderr).toBe(130)
    expect(first.stderr).toMatch(new RegExp(`interrupted: (no index was written at ${fresh}; run docpilot index again|${fresh} is left whole)`))
    expect((await spawn(['index', 'many-docs', '--out', fresh])).code).toBe(0)

    const out = join(dir, 'interrupted-index')
    expect((await spawn(['index', 'docs', '--out', out])).code).toBe(0)
    const before = await readFile(join(out, 'manifest.json'), 'utf8')
    const again = await interrupt(out)
    expect(again.code, again.stderr).toBe(130)
    expect(again.stderr).toContain(`interrupted: ${out} is left whole`)
    expect(existsSync(join(dir, '.interrupted-index.lock'))).toBe(false)
    // Whole: this run's manifest only if it finished writing, else the one before.
    const after = await readFile(join(out, 'manifest.json'), 'utf8')
    if (after !== before) expect(JSON.parse(after)).toMatchObject({ corpus: { files: 400 } })
    expect((await spawn(['query', '--index', out, 'signed cookies'])).code).toBe(0)
  }, 180_000)

  it('prints a readable answer for one question', async () => {
    const r = await run(['query', '--index', 'qidx', 'change', 'the', 'bun', 'port'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/1\. Bun › Change port number/)
    expect(r.stdout).toContain('/guide/bun#change-port-number')
  })

  it("says why the gate refused a question naming what no passage mentions, and shows the subject signal", async () => {
    const refused = await run(['query', '--index', 'qidx', 'How do I change the port of my Angular server?'])
    expect(refused.stdout).toContain('gate refused: the question names something no passage matching it mentions (subject 0.00, floor 1)')
    const passed = await run(['query', '--index', 'qidx', 'How do I change the port of my Bun server?'])
    expect(passed.stdout).toMatch(/gate passed \(.*subject 1\.00/)
  })

  it('scores a question set: recall by kind and the gate', async () => {
    const r = await run(['eval', '--index', 'qidx', '--questions', 'q.jsonl'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/keyword\s+1\s+1\.00\s+1\.00\s+1\.00\s+1\.00/)
    expect(r.stdout).toMatch(/paraphrase\s+1\s+1\.00/)
    expect(r.stdout).toMatch(/gate: off-topic refused 1\.00 \(1\/1\)/)
  })

  it('exits 2 for a bad --k and 1 for an index of another format version', async () => {
    expect((await run(['query', '--index', 'qidx', '--k', '0', 'x'])).code).toBe(2)
    const old = join(dir, 'old-idx')
    await mkdir(old)
    await writeFile(join(old, 'manifest.json'), JSON.stringify({ format: 0, docpilot: '0.0.1' }))
    const r = await run(['query', '--index', 'old-idx', 'cookies'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`This index has format version 0 (written by docpilot 0.0.1); this docpilot reads format version ${FORMAT_VERSION}. Rebuild it with \`docpilot index\`.`)
    const missing = await run(['eval', '--index', 'nowhere', '--questions', 'q.jsonl'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/No index at .*nowhere \(manifest.json is missing\)/)
  })
})
