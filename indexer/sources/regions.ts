/**
 * The attribute a generator puts on a built page's content (Starlight does,
 * and any site can by hand), as Pagefind reads it: the region read first, and,
 * once any page of a site carries it, the mark of what is a docs page at all.
 * Its own module: the collect step reads it without loading the HTML parser.
 */
export const PAGEFIND_BODY = '[data-pagefind-body]'
