/**
 * Node's on-disk cache of compiled modules, for the modules a command loads
 * after it starts (Node 22.1 and later; earlier versions have no such cache
 * and this does nothing).
 *
 * An installed docpilot's own command is compiled from code-cache.ts's cache
 * (vm.Script, which Node's cache does not see); this one covers what Node's
 * loader loads: the launcher, the packages left outside the bundle (the MCP
 * SDK, onnxruntime-web, jiti) and, in a checkout, the sources through tsx.
 * (Measured before code-cache.ts, when the bundle loaded through Node: a
 * re-index after a one-page edit, on Node 22, 330 -> 310 ms CPU.) Node keeps
 * it in the system's temporary folder, keyed by each file's contents and the
 * V8 version, so an upgraded docpilot or Node never runs stale code;
 * NODE_COMPILE_CACHE moves it and NODE_DISABLE_COMPILE_CACHE turns it off.
 */
import module from 'node:module'

/** Node's types for this project's oldest supported Node (20) do not have it yet. */
const nodeModule = module as typeof module & { enableCompileCache?: () => unknown }

export function cacheCompiledModules(): void {
  nodeModule.enableCompileCache?.()
}
