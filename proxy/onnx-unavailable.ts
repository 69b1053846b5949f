/**
 * Stands in for onnxruntime-web in the Cloudflare Worker's bundle (the
 * `[alias]` in wrangler.toml). The runtime cannot load its WebAssembly in a
 * Worker (code is only compiled from the uploaded bundle, and its 14 MB wasm
 * would not fit the upload limit anyway), so an ONNX index's questions are
 * searched lexical-only there, and each result says why. The alias also keeps
 * the Worker deployable when the optional runtime is not installed.
 *
 * Every use fails with the reason, every time (a module that threw while
 * loading would load "fine" on the retry, empty).
 */
const REASON =
  'the ONNX embedder does not run on Cloudflare Workers; serve this index with the Node proxy (`docpilot proxy`) for meaning search, or index with a static or hosted embedder'

const unavailable = (): never => {
  throw new Error(REASON)
}

export const InferenceSession = { create: async (): Promise<never> => unavailable() }

export class Tensor {
  constructor() {
    unavailable()
  }
}

export const env = { wasm: {} }
