/**
 * The `onnx` embedder, loaded on use. Its runtime, onnxruntime-web, is tens
 * of megabytes and an optional peer dependency of the npm package: static and
 * hosted indexes never need it (the browser gets its own copy inside the
 * prebuilt widget). Node without it gets an error that names the package.
 */
import { EmbedError } from './types.ts'

type OnnxModule = typeof import('./onnx.ts')

export const ONNX_RUNTIME_PACKAGE = 'onnxruntime-web'

function isMissingRuntime(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined
  return (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') && Boolean(e.message?.includes(`'${ONNX_RUNTIME_PACKAGE}'`))
}

export async function loadOnnx(): Promise<OnnxModule['OnnxEmbedder']> {
  try {
    return (await import('./onnx.ts')).OnnxEmbedder
  } catch (err) {
    if (!isMissingRuntime(err)) throw err
    throw new EmbedError(
      `this index uses an ONNX embedder, which needs the ${ONNX_RUNTIME_PACKAGE} package: install it with \`npm install ${ONNX_RUNTIME_PACKAGE}\``,
      'unknown_embedder',
      { cause: err },
    )
  }
}
