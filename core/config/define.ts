/**
 * The package's main entry (`import { defineConfig } from 'docpilot'`): what a
 * site owner's docpilot.config.ts or .mjs imports to have its fields typed and
 * completed as they write them. Types only, besides the identity function: a
 * config file that imports it loads nothing else of docpilot.
 */
import type { DocpilotConfigInput } from './schema.ts'

/** What an owner writes in docpilot.config: every field optional, each as the CLI validates it (the schema's input type). */
export type DocpilotConfig = DocpilotConfigInput

/** A config's default export may also be a function (sync or async) that returns it (cli/config-file.ts). */
export type DocpilotConfigFunction = () => DocpilotConfig | Promise<DocpilotConfig>

/**
 * Returns `config` as it is: it exists for its type, so an editor completes
 * each field and a misspelt one is an error before docpilot runs.
 */
export function defineConfig(config: DocpilotConfig): DocpilotConfig
export function defineConfig(config: DocpilotConfigFunction): DocpilotConfigFunction
export function defineConfig(config: DocpilotConfig | DocpilotConfigFunction): DocpilotConfig | DocpilotConfigFunction {
  return config
}
