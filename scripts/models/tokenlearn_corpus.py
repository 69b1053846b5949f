"""Collects generic technical-documentation texts for tokenlearn training (dev only).

    python3 scripts/models/tokenlearn_corpus.py OUT.jsonl [--roots R1,R2,...] [--max-texts N] [--seed S]

Walks the Markdown / reStructuredText files under the given roots (by default
documentation that is already on a development machine: Python's and its
packages' docs, Node's API docs, npm's docs, CMake's help, the READMEs of
the packages in node_modules) and writes, one JSON object a line, texts shaped
like what docpilot embeds: a section's heading followed by one paragraph
(passages), and single sentences (question-sized). Fenced code, tables and
markup are dropped. Files and texts that mention the evaluation corpora
(hono, astro) are skipped: the model is measured on docs it never saw.

The output also lists, per source root, how many files were read and the
sha256 of every file, so a run is reproducible on the same machine and the
provenance can say where the training text came from. The text itself is
never shipped: only the table learned from it.
"""
import hashlib
import json
import os
import random
import re
import sys

DEFAULT_ROOTS = [
    "/root/.pyenv/versions/3.11.7",
    "/usr/share/doc/nodejs",
    "/usr/lib/node_modules/npm",
    "/usr/share/cmake-3.25/Help",
    "/usr/lib/jvm",
    "/usr/local/go",
    "node_modules",
]
EXCLUDED = re.compile(r"hono|astro", re.I)
SKIP_FILE = re.compile(r"change|history|licen[cs]e|copying|authors|notice|code_of_conduct|security", re.I)
WORD = re.compile(r"[^\W_]+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])")
MAX_WORDS = 120


def doc_files(root: str):
    for base, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        if EXCLUDED.search(base) or "/test" in base:
            continue
        for f in sorted(files):
            if f.lower().endswith((".md", ".rst", ".markdown")) and not SKIP_FILE.search(f) and not EXCLUDED.search(f):
                path = os.path.join(base, f)
                if os.path.getsize(path) >= 1024:
                    yield path


def clean_inline(line: str) -> str:
    line = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", line)  # images
    line = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", line)  # links: keep the text
    line = re.sub(r":[a-z:]+:`([^`<]*)(<[^>]*>)?`", r"\1", line)  # rst roles
    line = re.sub(r"<[^>]+>", " ", line)  # html tags
    line = re.sub(r"[*_]{1,3}|`+|\|", " ", line)
    return re.sub(r"\s+", " ", line).strip()


def sections(text: str):
    """(heading, paragraph) pairs, code blocks and tables left out."""
    heading, para, in_code = "", [], False
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        s = raw.rstrip()
        if s.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or raw.startswith(("    ", "\t")) or s.lstrip().startswith(("|", "+-", ".. ", ">>>", "$ ")):
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if s.startswith("#") or (s and re.fullmatch(r"[=\-~^\"*]{3,}", nxt.strip() or "x")):
            if para:
                yield heading, " ".join(para)
                para = []
            heading = clean_inline(s.lstrip("#"))
            continue
        if re.fullmatch(r"[=\-~^\"*]{3,}", s.strip()):
            continue
        if not s.strip():
            if para:
                yield heading, " ".join(para)
                para = []
            continue
        para.append(clean_inline(s.lstrip("-*+ ")))
    if para:
        yield heading, " ".join(para)


def usable(t: str) -> bool:
    words = WORD.findall(t)
    letters = sum(c.isalpha() for c in t)
    return len(words) >= 5 and letters >= 0.6 * len(t) and not EXCLUDED.search(t)


def main() -> None:
    out = sys.argv[1]
    arg = lambda name, d: sys.argv[sys.argv.index(name) + 1] if name in sys.argv else d
    roots = arg("--roots", ",".join(DEFAULT_ROOTS)).split(",")
    max_texts = int(arg("--max-texts", "60000"))
    rng = random.Random(int(arg("--seed", "1")))
    passages, sentences, seen, sources = [], [], set(), {}
    for root in roots:
        if not os.path.isdir(root):
            continue
        files = {}
        for path in doc_files(root):
            raw = open(path, "rb").read()
            digest = hashlib.sha256(raw).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            text = raw.decode("utf-8", "replace")
            if len(EXCLUDED.findall(text)) > 2:
                continue
            files[os.path.relpath(path, root)] = digest
            for heading, para in sections(text):
                words = para.split()
                if len(words) > MAX_WORDS:
                    para = " ".join(words[:MAX_WORDS])
                if usable(para):
                    passages.append(f"{heading}\n{para}" if heading else para)
                for s in SENTENCE_END.split(para):
                    if usable(s) and len(s.split()) <= 40:
                        sentences.append(s)
        sources[root] = files
        print(f"{root}: {len(files)} files", file=sys.stderr)
    passages = sorted(set(passages))
    sentences = sorted(set(sentences))
    rng.shuffle(passages)
    rng.shuffle(sentences)
    # Half passages, half sentences: docpilot embeds both chunks and questions.
    half = max_texts // 2
    texts = passages[:half] + sentences[: max_texts - min(half, len(passages))]
    rng.shuffle(texts)
    print(f"{len(passages)} passages, {len(sentences)} sentences; kept {len(texts)}", file=sys.stderr)
    with open(out, "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps(t) + "\n")
    with open(out + ".sources.json", "w") as f:
        json.dump({"roots": {r: {"files": len(v), "sha256": v} for r, v in sources.items()}}, f)


if __name__ == "__main__":
    main()
