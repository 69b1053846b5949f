"""Embeds texts with a docpilot ONNX model folder on native onnxruntime (dev only).

    python3 scripts/models/embed_texts.py MODEL_DIR TEXTS.jsonl OUT.f32 [--max-tokens N]

TEXTS.jsonl holds one JSON string per line (passages); OUT.f32 gets one
float32 row per text, L2-normalised, pooled as the folder's
1_Pooling/config.json says (mean over the attention mask, or the [CLS]
vector), each text prefixed with the folder's document prompt
(config_sentence_transformers.json): the same vectors docpilot's onnx
embedder computes in WebAssembly (core/embed/onnx.ts), only
several times faster, for the heavy dev jobs (distilling a static model,
pre-computing chunk vectors for the side-by-side measurement). Needs
onnxruntime, tokenizers and numpy from PyPI; nothing a user installs.
"""
import json
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def read_json(path: str) -> dict:
    try:
        return json.load(open(path, encoding="utf-8"))
    except OSError:
        return {}


def main() -> None:
    model_dir, texts_path, out_path = sys.argv[1:4]
    max_tokens = int(sys.argv[sys.argv.index("--max-tokens") + 1]) if "--max-tokens" in sys.argv else None
    if max_tokens is None:
        try:
            max_tokens = json.load(open(f"{model_dir}/sentence_bert_config.json"))["max_seq_length"]
        except (OSError, KeyError):
            max_tokens = 512
    pooling = read_json(f"{model_dir}/1_Pooling/config.json")
    cls = bool(pooling.get("pooling_mode_cls_token")) and not pooling.get("pooling_mode_mean_tokens")
    prompts = read_json(f"{model_dir}/config_sentence_transformers.json").get("prompts") or {}
    prefix = prompts.get("document") or prompts.get("passage") or ""
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.enable_truncation(max_tokens)
    tok.no_padding()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(f"{model_dir}/model.onnx", opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    texts = [prefix + json.loads(line) for line in open(texts_path, encoding="utf-8") if line.strip()]
    # Similar lengths together: less padding per batch.
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    rows = [None] * len(texts)
    batch = 32
    for b in range(0, len(order), batch):
        idx = order[b : b + batch]
        encs = [tok.encode(texts[i]) for i in idx]
        T = max(len(e.ids) for e in encs)
        ids = np.zeros((len(idx), T), dtype=np.int64)
        mask = np.zeros((len(idx), T), dtype=np.int64)
        for r, e in enumerate(encs):
            ids[r, : len(e.ids)] = e.ids
            mask[r, : len(e.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = sess.run(None, feeds)[0]
        pooled = hidden[:, 0, :].copy() if cls else (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
        for r, i in enumerate(idx):
            rows[i] = pooled[r]
        if (b // batch) % 50 == 0:
            print(f"  {b + len(idx)}/{len(texts)}", file=sys.stderr, flush=True)
    out = np.stack(rows).astype("<f4")
    out.tofile(out_path)


if __name__ == "__main__":
    main()
