"""Token ids of each text with a Hugging Face tokenizer.json (dev only).

    python3 scripts/models/tokenize_words.py TOKENIZER.json TEXTS.jsonl OUT.json

TEXTS.jsonl holds one JSON string per line; OUT.json gets a JSON array with
each text's token ids, special tokens left out. For tokenizers docpilot does
not implement (LLaMA's byte-fallback BPE), when a word table is built from a
token table (scripts/models/wordllama.ts). Needs tokenizers from PyPI.
"""
import json
import sys

from tokenizers import Tokenizer


def main() -> None:
    tokenizer_path, texts_path, out_path = sys.argv[1:4]
    tokenizer = Tokenizer.from_file(tokenizer_path)
    texts = [json.loads(line) for line in open(texts_path, encoding="utf-8") if line.strip()]
    ids = [e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump(ids, out)


if __name__ == "__main__":
    main()
