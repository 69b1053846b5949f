/**
 * V8's tiering, tuned for a command that runs once and exits.
 *
 * By default V8 hands a function to its optimizing compiler after a small
 * budget of work (interrupt budget 66 KB of bytecode executed). A
 * `docpilot index` runs most of its code a few hundred times at most: a
 * profile of an astro build found about a quarter of its CPU in TurboFan,
 * compiling code that would have finished sooner unoptimized. With 15 times
 * the budget only the truly hot loops (tokenizing, pooling, gzip's callers)
 * are optimized: astro full build 4.27 -> 3.78 s CPU (median of 5 interleaved
 * runs, bench/README.md has the quiet-machine figure), output unchanged (the
 * flag changes when code is compiled, never what it computes).
 *
 * V8 flags are process-wide, so the parse thread started later gets it too.
 * The servers (`proxy`, `dev`, `mcp`) reach the larger budget on their hot
 * paths within their first requests, so they lose nothing that matters.
 * Node documents changing flags after start-up as unpredictable in general;
 * the interrupt budget is read each time a function's feedback is set up,
 * so setting it before the commands load is enough.
 *
 * Regular expressions tier too: by default V8 first compiles a pattern to
 * bytecode for its interpreter, and compiles it again to machine code on its
 * second run. marked's grammar is a dozen patterns of 250 to 1,500 characters
 * (block rules spliced together), run at every block and inline span, so the
 * interpreter stage only adds a compile, and its bytecode optimizer is the
 * dearer of the two: the first page a run parses paid about 50 ms of it (the
 * one page a re-index parses, 915 bytes), 20 ms with machine code straight
 * away. So a pattern is compiled to machine code at its first run: V8's
 * tier-up count is set to zero, not tier-up turned off. Turned off at run
 * time, V8 takes a pattern that already ran as bytecode for one with machine
 * code and jumps to code that does not exist: Node's module loader runs
 * patterns before any of docpilot's code, and `docpilot mcp` crashed on the
 * first of them it ran again (resolving the MCP SDK). Which code runs a
 * pattern never changes what it matches.
 */
import { setFlagsFromString } from 'node:v8'

/** The V8 flags a short run sets, after Node has started (and run code of its own). */
export const SHORT_RUN_FLAGS = ['--interrupt-budget=1000000', '--regexp-tier-up-ticks=0'] as const

export function tuneTieringForShortRuns(): void {
  for (const flag of SHORT_RUN_FLAGS) setFlagsFromString(flag)
}
