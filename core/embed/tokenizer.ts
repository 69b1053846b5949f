/**
 * A reader for Hugging Face `tokenizer.json` files, covering what sentence
 * encoders ship: BERT-style WordPiece (MiniLM, bge, e5, gte) and WordLevel
 * tables (static models). Unsupported parts fail loudly when the folder is
 * loaded, never silently at query time with different tokens.
 */

interface TokenizerJson {
  normalizer?: Normalizer | null
  pre_tokenizer?: PreTokenizer | null
  post_processor?: PostProcessor | null
  added_tokens?: { id: number; content: string; special?: boolean }[]
  truncation?: { max_length?: number } | null
  model: Model
}

type Normalizer =
  | { type: 'BertNormalizer'; clean_text?: boolean; handle_chinese_chars?: boolean; strip_accents?: boolean | null; lowercase?: boolean }
  | { type: 'Lowercase' }
  | { type: 'NFD' | 'NFKD' | 'NFC' | 'NFKC' | 'StripAccents' }
  | { type: 'Sequence'; normalizers: Normalizer[] }

type PreTokenizer =
  | { type: 'BertPreTokenizer' | 'Whitespace' | 'WhitespaceSplit' }
  | { type: 'Split'; pattern: { Regex?: string; String?: string }; behavior: 'Removed' | 'Isolated'; invert?: boolean }
  | { type: 'Sequence'; pretokenizers: PreTokenizer[] }

type PostProcessor =
  | { type: 'BertProcessing'; sep: [string, number]; cls: [string, number] }
  | { type: 'TemplateProcessing'; single: ({ SpecialToken: { id: string } } | { Sequence: { id: string } })[]; special_tokens: Record<string, { ids: number[] }> }

type Model =
  | { type: 'WordPiece'; vocab: Record<string, number>; unk_token: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number }
  | { type: 'WordLevel'; vocab: Record<string, number>; unk_token: string }

export interface Encoded {
  ids: number[]
}

export class TokenizerError extends Error {
  override name = 'TokenizerError'
}

/**
 * BERT's punctuation: every ASCII non-alphanumeric printable character (so
 * `$`, `+`, `<`, `|` split off) and any Unicode punctuation (P*), but not
 * the other Unicode symbols: `├──` stays one word, as in Hugging Face's
 * BertPreTokenizer, or the token ids differ from the model's own.
 */
const isPunct = (ch: string) => /[!-/:-@[-`{-~]/.test(ch) || /\p{P}/u.test(ch)
const isCjk = (cp: number) =>
  (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x20000 && cp <= 0x2a6df) ||
  (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x2f800 && cp <= 0x2fa1f)

function normalizer(n: Normalizer | null | undefined): (s: string) => string {
  if (!n) return (s) => s
  switch (n.type) {
    case 'Lowercase':
      return (s) => s.toLowerCase()
    case 'NFD':
    case 'NFKD':
    case 'NFC':
    case 'NFKC':
      return (s) => s.normalize(n.type as 'NFD')
    case 'StripAccents':
      return (s) => s.normalize('NFD').replace(/\p{Mn}/gu, '')
    case 'Sequence': {
      const fs = n.normalizers.map(normalizer)
      return (s) => fs.reduce((acc, f) => f(acc), s)
    }
    case 'BertNormalizer':
      return (s) => {
        let out = s
        if (n.clean_text !== false) out = out.replace(/[\u0000\ufffd]|\p{Cc}/gu, (c) => (/\s/.test(c) ? ' ' : '')).replace(/\s/gu, ' ')
        if (n.handle_chinese_chars !== false) out = [...out].map((c) => (isCjk(c.codePointAt(0)!) ? ` ${c} ` : c)).join('')
        const lower = n.lowercase !== false
        if (n.strip_accents === true || (n.strip_accents == null && lower)) out = out.normalize('NFD').replace(/\p{Mn}/gu, '')
        if (lower) out = out.toLowerCase()
        return out
      }
    default:
      throw new TokenizerError(`tokenizer.json: normalizer "${(n as { type: string }).type}" is not supported`)
  }
}

function preTokenizer(p: PreTokenizer | null | undefined): (s: string) => string[] {
  if (!p) return (s) => [s]
  switch (p.type) {
    case 'WhitespaceSplit':
      return (s) => s.split(/\s+/u).filter(Boolean)
    case 'Whitespace':
      return (s) => s.match(/\w+|[^\w\s]+/gu) ?? []
    case 'BertPreTokenizer':
      return (s) => {
        const out: string[] = []
        for (const word of s.split(/\s+/u)) {
          let cur = ''
          for (const ch of word) {
            if (isPunct(ch)) {
              if (cur) out.push(cur)
              out.push(ch)
              cur = ''
            } else cur += ch
          }
          if (cur) out.push(cur)
        }
        return out
      }
    case 'Split': {
      const source = p.pattern.Regex ?? p.pattern.String!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      const re = new RegExp(source, 'gu')
      return (s) => {
        const pieces: string[] = []
        let last = 0
        for (const m of s.matchAll(re)) {
          const gap = s.slice(last, m.index)
          if (p.invert) {
            pieces.push(m[0])
          } else {
            if (gap) pieces.push(gap)
            if (p.behavior === 'Isolated') pieces.push(m[0])
          }
          last = m.index! + m[0].length
        }
        if (!p.invert && last < s.length) pieces.push(s.slice(last))
        return pieces.filter(Boolean)
      }
    }
    case 'Sequence': {
      const fs = p.pretokenizers.map(preTokenizer)
      return (s) => fs.reduce<string[]>((acc, f) => acc.flatMap(f), [s])
    }
    default:
      throw new TokenizerError(`tokenizer.json: pre_tokenizer "${(p as { type: string }).type}" is not supported`)
  }
}

function model(m: Model): (word: string) => number[] {
  const unk = m.vocab[m.unk_token]
  if (unk === undefined) throw new TokenizerError(`tokenizer.json: unk_token "${m.unk_token}" is not in the vocabulary`)
  const vocab = new Map(Object.entries(m.vocab))
  if (m.type === 'WordLevel') return (w) => [vocab.get(w) ?? unk]
  if (m.type !== 'WordPiece') throw new TokenizerError(`tokenizer.json: model "${(m as { type: string }).type}" is not supported`)
  const prefix = m.continuing_subword_prefix ?? '##'
  const maxChars = m.max_input_chars_per_word ?? 100
  return (word) => {
    const chars = [...word]
    if (chars.length > maxChars) return [unk]
    const ids: number[] = []
    let start = 0
    while (start < chars.length) {
      let end = chars.length
      let found: number | undefined
      while (start < end) {
        const piece = (start > 0 ? prefix : '') + chars.slice(start, end).join('')
        found = vocab.get(piece)
        if (found !== undefined) break
        end--
      }
      if (found === undefined) return [unk]
      ids.push(found)
      start = end
    }
    return ids
  }
}

function postProcessor(p: PostProcessor | null | undefined): { before: number[]; after: number[] } {
  if (!p) return { before: [], after: [] }
  if (p.type === 'BertProcessing') return { before: [p.cls[1]], after: [p.sep[1]] }
  if (p.type === 'TemplateProcessing') {
    const before: number[] = []
    const after: number[] = []
    let seen = false
    for (const piece of p.single) {
      if ('Sequence' in piece) seen = true
      else (seen ? after : before).push(...(p.special_tokens[piece.SpecialToken.id]?.ids ?? []))
    }
    return { before, after }
  }
  throw new TokenizerError(`tokenizer.json: post_processor "${(p as { type: string }).type}" is not supported`)
}

export class Tokenizer {
  private readonly normalize: (s: string) => string
  private readonly split: (s: string) => string[]
  private readonly lookup: (w: string) => number[]
  private readonly specials: { before: number[]; after: number[] }
  readonly padId: number
  readonly maxLength: number

  /**
   * `sequenceLength` (sentence_bert_config.json's max_seq_length) wins over the
   * tokenizer file's own truncation, as in sentence-transformers: all-MiniLM-L6-v2's
   * tokenizer.json says 128 while the model is run at 256.
   */
  constructor(json: unknown, config: { model_max_length?: number; pad_token?: string } = {}, limit?: number, sequenceLength?: number) {
    const t = json as TokenizerJson
    if (!t || typeof t !== 'object' || !t.model) throw new TokenizerError('tokenizer.json: not a Hugging Face tokenizer file (no "model")')
    this.normalize = normalizer(t.normalizer)
    this.split = preTokenizer(t.pre_tokenizer)
    this.lookup = model(t.model)
    this.specials = postProcessor(t.post_processor)
    const pad = config.pad_token ?? '[PAD]'
    this.padId = t.model.vocab[pad] ?? 0
    const declared = sequenceLength ?? t.truncation?.max_length ?? config.model_max_length ?? 512
    this.maxLength = Math.min(limit ?? Infinity, declared)
  }

  /** Token ids with special tokens, truncated to the model's limit (specials kept). */
  encode(text: string): Encoded {
    const room = this.maxLength - this.specials.before.length - this.specials.after.length
    const ids: number[] = []
    for (const word of this.split(this.normalize(text))) {
      for (const id of this.lookup(word)) {
        if (ids.length >= room) break
        ids.push(id)
      }
      if (ids.length >= room) break
    }
    return { ids: [...this.specials.before, ...ids, ...this.specials.after] }
  }
}
