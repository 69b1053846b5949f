/**
 * `embed: 'hf:<org>/<name>'`: an ONNX sentence encoder from the Hugging Face
 * hub, downloaded once into the docpilot cache and read from there ever after.
 * The hub address comes from HF_ENDPOINT (the hub's own convention), so tests
 * and mirrors can point it elsewhere.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { ONNX_OPTIONAL_FILES } from '../core/embed/onnx-folder.ts'
import { exists } from './stat.ts'

export const HF_DEFAULT_ENDPOINT = 'https://huggingface.co'

/** Tried in order; the first that exists is the model (transformers.js repos keep it under onnx/). */
const MODEL_CANDIDATES = ['onnx/model.onnx', 'model.onnx']
const REQUIRED = ['tokenizer.json']
const OPTIONAL = [...ONNX_OPTIONAL_FILES, 'config.json']

export class HubError extends Error {
  override name = 'HubError'
}

export function hfCacheDir(cacheDir: string, repo: string): string {
  return join(cacheDir, 'hf', ...repo.split('/'))
}

function offlineHelp(repo: string, dir: string, endpoint: string, why: string): string {
  return [
    `embed: 'hf:${repo}' could not be downloaded from ${endpoint} (${why}).`,
    `Without network access, provide the model folder yourself: copy model.onnx (or onnx/model.onnx) and tokenizer.json`,
    `(plus tokenizer_config.json and 1_Pooling/config.json when the model has them) from https://huggingface.co/${repo}`,
    `into a folder and set  embed: { model: '<that folder>' }  in docpilot.config, or put them in ${dir} to fill the cache.`,
    `Or set embed: 'default' for the offline built-in model, or embed: false for lexical-only search.`,
  ].join('\n')
}

/** The local folder holding the repo's files, downloading what is missing. */
export async function ensureHubModel(repo: string, opts: { cacheDir: string; endpoint?: string; fetch?: typeof fetch }): Promise<string> {
  const dir = hfCacheDir(opts.cacheDir, repo)
  const haveModel = (await Promise.all(MODEL_CANDIDATES.map((f) => exists(join(dir, f))))).some(Boolean)
  if (haveModel && (await exists(join(dir, 'tokenizer.json')))) return dir
  const endpoint = (opts.endpoint ?? HF_DEFAULT_ENDPOINT).replace(/\/+$/, '')
  const doFetch = opts.fetch ?? fetch
  const get = async (file: string): Promise<Uint8Array | null> => {
    let res: Response
    try {
      res = await doFetch(`${endpoint}/${repo}/resolve/main/${file}`)
    } catch (err) {
      // fetch says only "fetch failed"; the cause says why (ECONNREFUSED, ENOTFOUND, ...).
      const cause = (err as { cause?: { code?: string; message?: string } }).cause
      throw new HubError(offlineHelp(repo, dir, endpoint, cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err))))
    }
    if (res.status === 404) return null
    if (!res.ok) throw new HubError(offlineHelp(repo, dir, endpoint, `HTTP ${res.status} for ${file}`))
    return new Uint8Array(await res.arrayBuffer())
  }
  const save = async (file: string, bytes: Uint8Array) => {
    const path = join(dir, file)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(`${path}.part`, bytes)
    await rename(`${path}.part`, path)
  }
  let model: [string, Uint8Array] | null = null
  for (const f of MODEL_CANDIDATES) {
    const b = await get(f)
    if (b) {
      model = [f, b]
      break
    }
  }
  if (!model) throw new HubError(offlineHelp(repo, dir, endpoint, `the repo has no ${MODEL_CANDIDATES.join(' or ')}`))
  const required = await Promise.all(REQUIRED.map(async (f) => [f, await get(f)] as const))
  for (const [f, b] of required) if (!b) throw new HubError(offlineHelp(repo, dir, endpoint, `the repo has no ${f}`))
  const optional = await Promise.all(OPTIONAL.map(async (f) => [f, await get(f)] as const))
  // Model last: its presence marks a complete download.
  for (const [f, b] of [...required, ...optional]) if (b) await save(f, b)
  await save(model[0], model[1])
  return dir
}
