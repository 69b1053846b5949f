/**
 * The MCP route's part of the proxy settings (DOCPILOT_PROXY on Workers):
 * where the site serves its index and its agent files, the site's
 * path-to-URL mapping (so get_page also takes a source path), and the route's
 * own rate limit. Node reads the same files from disk instead of the URLs
 * (proxy/mcp-disk.ts).
 */
import * as z from 'zod'
import { McpSchema, UrlsSchema, type DocpilotConfig } from '../core/config/schema.ts'

export const McpSettingsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Where the index is fetched from: a path on the request's own origin, or an absolute URL. */
  indexUrl: z.string().min(1).default('/docpilot/'),
  /** Where llms.txt and the page copies are served (urls.base unless mcp.siteUrl says otherwise). */
  siteUrl: z.string().min(1).default('/'),
  urls: UrlsSchema.default(UrlsSchema.parse({})),
  /** The route's own per-client bucket (mcp.rateLimit), which the embeddings its searches make also spend. */
  rateLimit: McpSchema.shape.rateLimit,
})
export type McpSettings = z.output<typeof McpSettingsSchema>

export function mcpSettingsFor(config: Pick<DocpilotConfig, 'mcp' | 'urls'>): McpSettings {
  return { enabled: config.mcp.enabled, indexUrl: config.mcp.indexUrl, siteUrl: config.mcp.siteUrl ?? config.urls.base, urls: config.urls, rateLimit: config.mcp.rateLimit }
}
