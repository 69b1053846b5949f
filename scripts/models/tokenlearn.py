"""Fits a static model's table to its teacher's text vectors (tokenlearn; dev only).

    python3 scripts/models/tokenlearn.py CONFIG.json

CONFIG names (all paths):
  vocab          the model's words, one a line (row order kept)
  wordVectors    float32 rows: the teacher's vector of each word embedded alone
  texts          JSONL, one training text a line (tokenlearn_corpus.py)
  textVectors    float32 rows: the teacher's vector of each text (embed_texts.py)
  out            where the learned float32 table goes (rows x dims)
  dims, sif, zipfTop, epochs, batch, lr, l2, holdout, seed

The static model embeds a text as the normalised sum of its words' rows
(docpilot's word tokenizer: lower-cased runs of letters and digits; words
outside the vocabulary count for nothing). Training makes that sum point
where the teacher's own vector of the text points:

  1. targets: the teacher's text vectors, centred and reduced by PCA to `dims`
     (the basis is fitted on the texts, so it keeps the directions along which
     documentation texts differ);
  2. start: the distilled table, the words' own teacher vectors in that basis,
     weighted by SIF (a / (a + p(rank)), Zipf's p), as distill.ts does;
  3. minimise mean(1 - cos(sum_t count_t * row_t, target)) with Adam over
     mini-batches, the gradient written out by hand (the model is linear up to
     the normalisation), plus l2 * |row - start|^2 so that rows of words seen in
     few texts move only as far as the evidence asks;
  4. keep the epoch with the best cosine on held-out texts.

Numpy and scipy only (no torch).
"""
import json
import re
import sys

import numpy as np
import scipy.sparse as sp

WORD = re.compile(r"[^\W_]+")


def count_matrix(texts, index):
    rows, cols = [], []
    for i, t in enumerate(texts):
        for w in WORD.findall(t.lower()):
            j = index.get(w)
            if j is not None:
                rows.append(i)
                cols.append(j)
    data = np.ones(len(rows), dtype=np.float32)
    return sp.csr_matrix((data, (rows, cols)), shape=(len(texts), len(index)))


def cosines(X, E, T):
    S = X @ E
    n = np.linalg.norm(S, axis=1, keepdims=True) + 1e-9
    return ((S / n) * T).sum(1)


def main() -> None:
    cfg = json.load(open(sys.argv[1]))
    rng = np.random.default_rng(cfg.get("seed", 1))
    vocab = [w for w in open(cfg["vocab"], encoding="utf-8").read().split("\n") if w]
    index = {w: i for i, w in enumerate(vocab)}
    W = np.fromfile(cfg["wordVectors"], dtype="<f4").reshape(len(vocab), -1)
    texts = [json.loads(l) for l in open(cfg["texts"], encoding="utf-8") if l.strip()]
    Y = np.fromfile(cfg["textVectors"], dtype="<f4").reshape(len(texts), -1)
    dims = cfg["dims"]

    mean = Y.mean(0)
    _, _, vt = np.linalg.svd(Y - mean, full_matrices=False)
    P = vt[:dims].T  # 384 x dims
    T = (Y - mean) @ P
    T /= np.linalg.norm(T, axis=1, keepdims=True)

    ranks = np.arange(len(vocab), dtype=np.float64)
    sif = cfg["sif"] / (cfg["sif"] + cfg["zipfTop"] / (ranks + 1))
    E0 = (((W - W.mean(0)) @ P) * sif[:, None]).astype(np.float32)
    E = E0.copy()

    X = count_matrix(texts, index)
    has_words = np.asarray(X.sum(1)).ravel() > 0
    order = rng.permutation(np.flatnonzero(has_words))
    n_hold = int(len(order) * cfg["holdout"])
    hold, train = order[:n_hold], order[n_hold:]
    Xh, Th = X[hold], T[hold]
    seen = np.asarray(X[train].sum(0)).ravel()
    print(f"{len(texts)} texts ({len(train)} train, {n_hold} held out), {int((seen > 0).sum())} of {len(vocab)} rows seen", file=sys.stderr)

    lr = cfg["lr"] * float(np.sqrt((E0**2).mean()))
    l2 = cfg["l2"]
    m = np.zeros_like(E)
    v = np.zeros_like(E)
    b1, b2, step = 0.9, 0.999, 0
    best = (cosines(Xh, E, Th).mean(), E.copy(), 0)
    print(f"epoch 0: held-out cos {best[0]:.4f}", file=sys.stderr)
    for epoch in range(1, cfg["epochs"] + 1):
        rng.shuffle(train)
        for b in range(0, len(train), cfg["batch"]):
            idx = train[b : b + cfg["batch"]]
            Xb, Tb = X[idx], T[idx]
            S = Xb @ E
            n = np.linalg.norm(S, axis=1, keepdims=True) + 1e-9
            V = S / n
            c = (V * Tb).sum(1, keepdims=True)
            dS = -(Tb - c * V) / n / len(idx)
            g = np.asarray(Xb.T @ dS) + 2 * l2 * (E - E0)
            step += 1
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            E -= lr * (m / (1 - b1**step)) / (np.sqrt(v / (1 - b2**step)) + 1e-12 + 1e-8 * lr)
        score = cosines(Xh, E, Th).mean()
        print(f"epoch {epoch}: held-out cos {score:.4f}", file=sys.stderr, flush=True)
        if score > best[0]:
            best = (score, E.copy(), epoch)
    print(json.dumps({"heldOutCosStart": float(cosines(Xh, E0, Th).mean()), "heldOutCosBest": float(best[0]), "bestEpoch": best[2]}))
    best[1].astype("<f4").tofile(cfg["out"])


if __name__ == "__main__":
    main()
