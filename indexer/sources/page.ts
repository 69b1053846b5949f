/**
 * What every source (Markdown, MDX, built HTML) is reduced to before
 * sectioning: the page's headings and text blocks in document order.
 */
export type PageNode =
  | {
      type: 'heading'
      depth: number
      text: string
      /** Explicit or real id. */
      id?: string
      /** The text the generator slugs into the id, when it differs from `text` (a component's children, left out of `text`, are in it). */
      slugText?: string
    }
  | { type: 'text'; text: string }

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
  /** Non-fatal problems worth a warning (bad frontmatter, ...). */
  notes?: string[]
}
