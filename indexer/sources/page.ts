/**
 * What every source (Markdown, MDX, built HTML) is reduced to before
 * sectioning: the page's headings and text blocks in document order.
 */
export type PageNode =
  | {
      type: 'heading'
      depth: number
      text: string
      /** Explicit (`{#id}`) or real (built HTML) id. */
      id?: string
      /**
       * The heading's pieces, from which each generator makes its id (anchors/heading-source.ts), when it is more
       * than the plain text shown: each generator counts some kinds and not others, and a component's children,
       * left out of `text`, are among them. `{#id}` is then read from the pieces, not `id`.
       */
      parts?: HeadingPart[]
    }
  | { type: 'text'; text: string }

/**
 * A piece of a Markdown heading, of a kind the site generators tell apart when they make the heading's id. A text
 * piece's `written` is its source, when character references or a backslash escape make it differ from `text`.
 */
export type HeadingPart =
  | { kind: 'text'; text: string; written?: string }
  | { kind: 'code'; text: string }
  | { kind: 'image'; alt: string }
  /** `[^label]`: `number` is the note's, in the order the page cites them; none when no definition has the label. */
  | { kind: 'footnote'; label: string; number: number | undefined }

export interface ParsedPage {
  /** Title from metadata (frontmatter `title`, HTML `<title>`), if any. */
  metaTitle?: string
  /** The page's own summary (frontmatter `description`), if any. */
  description?: string
  /** The page as clean Markdown (llms.txt page copies), when the parser was asked for it. */
  markdown?: string
  nodes: PageNode[]
  /**
   * The heading ids are the page's own (built HTML): a heading without one has
   * no anchor on the live page, so none is computed for it.
   */
  ownIds?: true
  /**
   * The page asks to be kept out of search (built HTML: a robots noindex, a generator's own index
   * page): left out of the index, unless every page of the site asks it (see collect.ts).
   */
  noindex?: true
  /** Non-fatal problems worth a warning (bad frontmatter, ...). */
  notes?: string[]
}
