/**
 * Where `docpilot index` writes when neither --out nor the config's `out`
 * says: kept apart from the schema so that commands which only need the
 * folder's name (`docpilot widget`) do not load zod at start.
 */
export const DEFAULT_INDEX_OUT = '.docpilot/index'
