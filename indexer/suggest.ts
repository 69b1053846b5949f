/**
 * Suggested questions for the panel's empty state, derived from the docs'
 * own headings at index time (the owner's `panel.suggestions` wins).
 *
 * Only headings that read as something a reader would ask are used: a
 * heading that already is a question ("Why does my route return 404?"), a
 * "How to ..." heading, or a task heading that starts with a common verb,
 * imperative or -ing ("Deploying to Cloudflare" -> "How do I deploy to
 * Cloudflare?"). Anything else (a noun like "Installation", an API name) is
 * skipped rather than forced into an awkward sentence. One question per page,
 * so the suggestions show the breadth of the docs.
 */
import type { ChunkRecord } from '../core/index/format.ts'

export const MAX_SUGGESTIONS = 4

/**
 * Verbs that start task headings in technical docs: a general list, not one
 * built from any site's questions. It only decides which headings can be
 * phrased as "How do I <verb> ...?". Written as an imperative ("Install the
 * CLI") only the verbs that are rarely nouns count; as an -ing form
 * ("Streaming responses") the ones that double as nouns count too.
 */
const IMPERATIVE_VERBS = words(
  'add authenticate authorize choose configure connect convert create customize define delete deploy disable ' +
    'enable extend fetch generate get handle install integrate migrate override parse pass persist protect ' +
    'publish read register remove rename render replace restrict reuse run secure send serve set share start ' +
    'throw translate trigger upgrade upload use validate verify write',
)
const TASK_VERBS = new Set([
  ...IMPERATIVE_VERBS,
  ...words('access build bundle cache call change check debug export filter import limit load log mock monitor query redirect request reset return scale sort split stream style test track type update watch'),
])

function words(list: string): Set<string> {
  return new Set(list.split(' '))
}

/** A verb followed by one of these has no object of its own ("Using with Vite", "Request and Response"). */
const NO_OBJECT = words('with and or of &')

const MAX_WORDS = 12
const MAX_CHARS = 90

/** The base form of an -ing word, if it is one of TASK_VERBS ("Writing" -> "write", "Getting" -> "get"). */
function verbOfGerund(word: string): string | undefined {
  if (!word.endsWith('ing') || word.length < 5) return undefined
  const stem = word.slice(0, -3)
  const candidates = [stem, `${stem}e`, stem.replace(/([bdgmnprt])\1$/, '$1')]
  return candidates.find((c) => TASK_VERBS.has(c))
}

/** Heading text as a reader sees it: emoji, markup leftovers and trailing colons removed. */
function clean(heading: string): string {
  return heading
    .replace(/[\p{Extended_Pictographic}\uFE0F\u200D]/gu, '')
    .replace(/[*_`]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/[\s:.]+$/, '')
    .trim()
}

/** The question a heading reads as, or undefined when it does not read as one. */
export function questionFromHeading(heading: string): string | undefined {
  const text = clean(heading)
  const words = text.split(' ')
  if (text.length < 8 || text.length > MAX_CHARS || words.length < 2 || words.length > MAX_WORDS) return undefined
  // Code, signatures and paths are not questions: a heading with symbols beyond plain punctuation is skipped.
  if (/[(){}[\]<>=/\\|$#@]/.test(text)) return undefined
  if (text.endsWith('?')) return text
  // A task heading's subtitle after a colon names a detail, not the task: "Choosing one provider: chat.chain false" asks "How do I choose one provider?".
  const task = text.split(/:\s/)[0]!.split(' ')
  if (task.length < 2) return undefined
  const [first = '', ...rest] = task
  const lower = first.toLowerCase()
  if (lower === 'how' && rest[0]?.toLowerCase() === 'to' && rest.length > 1) return `How do I ${rest.slice(1).join(' ')}?`
  const verb = IMPERATIVE_VERBS.has(lower) ? lower : verbOfGerund(lower)
  if (!verb || NO_OBJECT.has(rest[0]?.toLowerCase() ?? '')) return undefined
  return `How do I ${[verb, ...rest].join(' ')}?`
}

/** A section heading that reads as a question. */
export interface HeadingQuestion {
  question: string
  /** The page's URL. */
  page: string
  /** A heading that is already a question: how readers phrase things, kept verbatim. */
  asked: boolean
}

/**
 * The questions these chunks' section headings read as, in order, each
 * section once. Headings below the page title only: a page title is usually
 * a topic ("Routing"), a section title the task. Made per page when the page
 * is parsed, and kept with it in the page cache (collect.ts), so a re-index
 * asks only the changed pages' headings.
 */
export function headingQuestions(chunks: readonly ChunkRecord[]): HeadingQuestion[] {
  const seen = new Set<string>()
  const questions: HeadingQuestion[] = []
  for (const chunk of chunks) {
    if (!chunk.anchor || chunk.trail.length < 2) continue
    const section = `${chunk.url}#${chunk.anchor}`
    if (seen.has(section)) continue
    seen.add(section)
    const heading = chunk.trail[chunk.trail.length - 1]!
    const question = questionFromHeading(heading)
    if (question) questions.push({ question, page: chunk.url, asked: question === clean(heading) })
  }
  return questions
}

/**
 * Up to MAX_SUGGESTIONS questions from section headings (headingQuestions, in
 * the docs' order), at most one per page: half from headings written as
 * questions (FAQ entries), the rest from task headings, either kind filling
 * in when the other runs short.
 */
export function suggestFromQuestions(questions: readonly HeadingQuestion[]): string[] {
  // A section two pages share (a.md and a.mdx, both served at /a) may come twice: its page, once taken, takes no other.
  const pages = new Set<string>()
  const picked: string[] = []
  const take = (asked: boolean, upTo: number) => {
    for (const c of questions) {
      if (picked.length >= upTo) return
      if (c.asked !== asked || pages.has(c.page) || picked.includes(c.question)) continue
      pages.add(c.page)
      picked.push(c.question)
    }
  }
  take(true, MAX_SUGGESTIONS / 2)
  take(false, MAX_SUGGESTIONS)
  take(true, MAX_SUGGESTIONS)
  return picked
}
