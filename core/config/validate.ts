/**
 * Turns the config schema's issues into messages an owner can act on: each
 * names the file, the field path, and what the field must be (or the key it
 * probably meant), e.g.
 *   Invalid config docpilot.config.ts: chat.chain must be false, 'auto' or an array of providers (got "yes")
 */
import type * as z from 'zod'
import { ConfigSchema, type DocpilotConfig } from './schema.ts'
import { ConfigError } from './config-error.ts'

export { ConfigError }

type AnySchema = z.core.$ZodType
type Def = { type: string; [key: string]: unknown }
type Key = PropertyKey

const defOf = (s: AnySchema): Def => (s as unknown as { _zod: { def: Def } })._zod.def
const descriptionOf = (s: AnySchema): string | undefined => (s as unknown as { description?: string }).description

const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional'])

/** Skips wrappers (default, optional, ...) that do not change what a value must be; keeps the first description seen. */
function unwrap(s: AnySchema): { schema: AnySchema; description?: string } {
  let description = descriptionOf(s)
  let def = defOf(s)
  while (WRAPPERS.has(def.type)) {
    s = def.innerType as AnySchema
    description ??= descriptionOf(s)
    def = defOf(s)
  }
  return { schema: s, description }
}

/** The sub-schema a path points at, or undefined if it leads nowhere known. */
function schemaAt(root: AnySchema, path: readonly Key[]): AnySchema | undefined {
  let s: AnySchema | undefined = root
  for (const key of path) {
    if (!s) return undefined
    s = childOf(unwrap(s).schema, key)
  }
  return s
}

function childOf(s: AnySchema, key: Key): AnySchema | undefined {
  const def = defOf(s)
  if (def.type === 'object') return (def.shape as Record<string, AnySchema>)[String(key)]
  if (def.type === 'array' && typeof key === 'number') return def.element as AnySchema
  if (def.type === 'union') {
    for (const option of def.options as AnySchema[]) {
      const child = childOf(unwrap(option).schema, key)
      if (child) return child
    }
  }
  return undefined
}

/** Keys an object (or any object branch of a union) at this schema accepts. */
function keysOf(s: AnySchema | undefined): string[] {
  if (!s) return []
  const { schema } = unwrap(s)
  const def = defOf(schema)
  if (def.type === 'object') return Object.keys(def.shape as object)
  if (def.type === 'union') return [...new Set((def.options as AnySchema[]).flatMap(keysOf))]
  return []
}

/** Every path below `root` whose last key is `key` (any case): a setting written in the wrong section. */
function pathsNamed(root: AnySchema, key: string, at: readonly string[] = []): string[][] {
  return keysOf(root).flatMap((k) => {
    const here = [...at, k]
    const found = k.toLowerCase() === key.toLowerCase() && at.length > 0 ? [here] : []
    const child = childOf(unwrap(root).schema, k)
    return child ? [...found, ...pathsNamed(child, key, here)] : found
  })
}

/** Keys an owner is likely to write for something configured elsewhere. */
const ELSEWHERE: Record<string, string> = {
  widget: "the widget's options are its script tag's data- attributes (widget.md in docpilot's docs); its suggested questions are panel.suggestions",
}

const quote = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : String(v))

function orList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}

/** What a value of this schema must be, in words. */
export function describeSchema(s: AnySchema): string {
  const { schema, description } = unwrap(s)
  if (description) return description
  const def = defOf(schema)
  switch (def.type) {
    case 'literal':
      return orList((def.values as unknown[]).map(quote))
    case 'enum':
      return `one of ${orList(Object.values(def.entries as Record<string, unknown>).map(quote))}`
    case 'string':
      return 'a string'
    case 'number':
      return describeNumber(def)
    case 'boolean':
      return 'true or false'
    case 'array':
      return `a list of ${describeSchema(def.element as AnySchema).replace(/^an? /, '')}s`
    case 'object':
      return 'an object'
    case 'union':
      return orList((def.options as AnySchema[]).map(describeSchema))
    case 'pipe':
      // A value that is checked, then transformed: what the owner writes is the input side.
      return describeSchema(def.in as AnySchema)
    default:
      return `a valid ${def.type}`
  }
}

/** A number field in words, from its checks: "a whole number from 1 to 3650", "a number of at least 0". */
function describeNumber(def: Def): string {
  const checks = ((def.checks as AnySchema[] | undefined) ?? []).map((c) => defOf(c) as Def & { check?: string; format?: string; value?: number; inclusive?: boolean })
  const whole = checks.some((c) => c.check === 'number_format' && /int/.test(String(c.format)))
  const min = checks.find((c) => c.check === 'greater_than')
  const max = checks.find((c) => c.check === 'less_than')
  const kind = whole ? 'a whole number' : 'a number'
  if (min?.inclusive && max?.inclusive) return `${kind} from ${min.value} to ${max.value}`
  const bounds = [
    min && `${min.inclusive ? 'at least' : 'greater than'} ${min.value}`,
    max && `${max.inclusive ? 'at most' : 'less than'} ${max.value}`,
  ].filter(Boolean)
  return bounds.length ? `${kind} of ${bounds.join(' and ')}` : kind
}

function valueAt(input: unknown, path: readonly Key[]): unknown {
  let v = input
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<Key, unknown>)[key]
  }
  return v
}

function shown(v: unknown): string {
  if (v === undefined) return 'nothing'
  if (typeof v === 'function') return 'a function'
  const json = JSON.stringify(v)
  return json.length > 60 ? `${json.slice(0, 57)}...` : json
}

export function formatPath(path: readonly Key[]): string {
  let out = ''
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key)
  return out
}

/** Edit distance counting a swap of neighbours as one edit (optimal string alignment), for "did you mean". */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

/** The known key closest to an unknown one, if it is close enough to be a typo. */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const key of known) {
    const d = key.toLowerCase() === unknown.toLowerCase() ? 0 : editDistance(unknown, key)
    if (d < bestDistance) [best, bestDistance] = [key, d]
  }
  return bestDistance <= Math.max(1, Math.floor(unknown.length / 3)) ? best : undefined
}

/** The strings a field accepts as they are (its literals and enum values, in any union branch), for "did you mean". */
function wordsOf(s: AnySchema | undefined): string[] {
  if (!s) return []
  const def = defOf(unwrap(s).schema)
  if (def.type === 'literal') return (def.values as unknown[]).filter((v): v is string => typeof v === 'string')
  if (def.type === 'enum') return Object.values(def.entries as Record<string, unknown>).filter((v): v is string => typeof v === 'string')
  if (def.type === 'union') return (def.options as AnySchema[]).flatMap(wordsOf)
  return []
}

/** "; did you mean 'default'?" when a string value is a near miss of a word the field accepts. */
function suggestion(schema: AnySchema | undefined, value: unknown): string {
  const guess = typeof value === 'string' && value ? closestKey(value, wordsOf(schema)) : undefined
  return guess ? `; did you mean ${quote(guess)}?` : ''
}

/**
 * A string failing one format branch of a union (embed's 'hf:<org>/<name>') was
 * meant as that format only when it starts the way the format does ('hf:');
 * anything else ('defualt') is a miss of the whole union.
 */
function meantFormat(issue: z.core.$ZodIssue & { code: 'invalid_format' }, schema: AnySchema | undefined, value: unknown): boolean {
  if (!schema || defOf(unwrap(schema).schema).type !== 'union') return true
  const prefix = /^\/\^([\w:-]+)/.exec(String((issue as { pattern?: unknown }).pattern ?? ''))?.[1]
  return typeof value === 'string' && prefix !== undefined && value.startsWith(prefix)
}

function sizeLimit(issue: z.core.$ZodIssue & { code: 'too_small' | 'too_big' }): string {
  const small = issue.code === 'too_small'
  const n = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum)
  const inclusive = issue.inclusive !== false
  if (issue.origin === 'string') return small && n <= 1 ? 'must not be empty' : `must be ${small ? 'at least' : 'at most'} ${n} characters long`
  if (issue.origin === 'array' || issue.origin === 'set') {
    return small ? `must list at least ${n} item${n === 1 ? '' : 's'}` : `must list at most ${n} items`
  }
  const bound = small ? (inclusive ? 'at least' : 'greater than') : inclusive ? 'at most' : 'less than'
  return `must be ${bound} ${n}`
}

/**
 * A union fails as a whole, but when exactly one branch accepted the value's
 * shape and only a field inside it is wrong, that field is the real problem.
 */
function innerIssues(issue: z.core.$ZodIssue & { code: 'invalid_union' }): z.core.$ZodIssue[] | undefined {
  const deep = issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0))
  if (deep.length !== 1) return undefined
  return deep[0]!.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as z.core.$ZodIssue)
}

function problemsOf(issue: z.core.$ZodIssue, input: unknown): string[] {
  if (issue.code === 'invalid_union') {
    const inner = innerIssues(issue)
    if (inner) return inner.flatMap((i) => problemsOf(i, input))
  }
  const path = issue.path
  const where = formatPath(path) || 'the config'
  const value = valueAt(input, path)
  const got = ` (got ${shown(value)})`
  const schema = schemaAt(ConfigSchema, path)
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = keysOf(schema ?? ConfigSchema)
      return issue.keys.map((key) => {
        const field = formatPath([...path, key])
        const hint = path.length === 0 ? ELSEWHERE[key] : undefined
        if (hint) return `${field} is not a setting of the config file: ${hint}`
        const guess = closestKey(key, known)
        if (guess) return `${field} is not a known setting; did you mean ${formatPath([...path, guess])}?`
        const moved = pathsNamed(ConfigSchema, key).filter((p) => formatPath(p) !== field)
        if (moved.length) return `${field} is not a known setting; did you mean ${orList(moved.map(formatPath))}?`
        return `${field} is not a known setting; remove it (${where === 'the config' ? 'top-level' : where} settings are: ${known.join(', ')})`
      })
    }
    case 'invalid_type':
      if (issue.expected === 'int') return [`${where} must be a whole number${got}`]
      if (path.length === 0) return [`the file must export a config object${got}`]
      return [`${where} must be ${schema ? describeSchema(schema) : issue.expected}${got}`]
    case 'invalid_union':
    case 'invalid_value':
      return [`${where} must be ${schema ? describeSchema(schema) : issue.message}${got}${suggestion(schema, value)}`]
    case 'too_small':
    case 'too_big':
      return [`${where} ${sizeLimit(issue)}${got}`]
    case 'invalid_format':
      if (!meantFormat(issue, schema, value)) return [`${where} must be ${describeSchema(schema!)}${got}${suggestion(schema, value)}`]
      if (issue.format === 'url') return [`${where} must be a full URL such as https://example.com/v1${got}`]
      return [`${where} must be ${issue.message.replace(/^(Invalid string: )?(expected )?/, '')}${got}`]
    case 'custom':
      return [`${where}: ${issue.message}${issue.params?.showValue === false ? '' : got}`]
    default:
      return [`${where}: ${issue.message}${got}`]
  }
}

/**
 * Validates what a config file exported. Throws ConfigError listing every
 * problem; returns the config with defaults filled in.
 */
export function validateConfig(input: unknown, file: string): DocpilotConfig {
  const parsed = ConfigSchema.safeParse(input ?? {})
  if (parsed.success) return parsed.data
  throw new ConfigError(file, parsed.error.issues.flatMap((i) => problemsOf(i, input)))
}
