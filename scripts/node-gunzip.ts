/**
 * fflate's `gunzipSync`, for the bundled CLI only (scripts/cli-bundle.ts
 * points `fflate` here): the same bytes, from Node's zlib. core/ reads
 * gzipped parts with fflate because it also runs in the browser; fflate is
 * JavaScript that builds its Huffman tables as it loads, about 5 ms of CPU on
 * every `docpilot index`, which only needs gunzip, if at all, where Node
 * has it built in. zlib is the stricter reader: it checks the CRC (a damaged
 * part throws instead of giving wrong bytes) and reads every gzip member (the
 * index writes one).
 */
import { gunzipSync as zlibGunzipSync } from 'node:zlib'

export function gunzipSync(data: Uint8Array): Uint8Array {
  // A Uint8Array of its own, as fflate returns: zlib's Buffer may sit in a shared pool, and its slice() is a view, not a copy.
  return new Uint8Array(zlibGunzipSync(data))
}
