/**
 * What an ONNX model folder holds besides the graph, and what docpilot reads
 * from it. Kept apart from onnx.ts so the indexer and the reader can list a
 * folder's files without loading onnxruntime.
 *
 * Prompts: retrieval models trained with a prefix on questions or passages
 * (bge: "Represent this sentence for searching relevant passages: " on
 * questions; e5: "query: " / "passage: ") name them in the folder's
 * config_sentence_transformers.json, as sentence-transformers does
 * (`prompts: { query, document }`, `passage` read as `document`). The file is
 * a model file like the others: the index carries it, so the browser prefixes
 * questions exactly as the indexer prefixed passages.
 */

export interface Prefixes {
  query?: string
  document?: string
}

export interface OnnxFolder {
  model: Uint8Array
  /** How errors name the model file (a path, or the index part it came from). */
  modelName?: string
  tokenizer: unknown
  tokenizerConfig?: { model_max_length?: number; pad_token?: string }
  pooling?: { pooling_mode_cls_token?: boolean; pooling_mode_mean_tokens?: boolean }
  /** sentence-transformers' own settings: its max_seq_length is the limit the model was trained and published with. */
  sentenceBert?: { max_seq_length?: number }
  /** config_sentence_transformers.json: the prompts the model was trained with. */
  sentenceTransformers?: { prompts?: Record<string, string> }
}

/** The files of a model folder besides model.onnx and tokenizer.json, each optional, under the names the index stores them. */
export const ONNX_OPTIONAL_FILES = ['tokenizer_config.json', '1_Pooling/config.json', 'sentence_bert_config.json', 'config_sentence_transformers.json'] as const

/** The question and passage prefixes a folder's prompts declare. */
export function promptPrefixes(config: OnnxFolder['sentenceTransformers']): Prefixes {
  const prompts = config?.prompts ?? {}
  const document = prompts.document ?? prompts.passage
  return { ...(prompts.query ? { query: prompts.query } : {}), ...(document ? { document } : {}) }
}
