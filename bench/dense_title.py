"""Dense retrieval over the passage text alone vs "title\\ntext": is the title worth embedding?

Not a test. Exact cosine over the packaged MiniLM (no ANN, no chunking: each passage or abstract is one
text, cut at the model's 256-token window), so only what the title adds is measured. 2Wiki: R@5 on
questions 1-500 and 501-1000; SciFact: nDCG@10 on its 300 test claims. Writes bench/DENSE_TITLE.json.

    HF_HUB_OFFLINE=1 python bench/dense_title.py
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kgrag.core.models import load_embedder
from kgrag.core.settings import EmbeddingSettings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def two_wiki(encode, data: Path) -> dict[str, list[float]]:
    corpus = json.loads((data / "2wikimultihopqa" / "corpus.json").read_text())
    questions = [json.loads(line) for line in (data / "2wikimultihopqa" / "queries.jsonl").read_text().splitlines()]
    q = encode([x["question"] for x in questions])
    out = {}
    for variant in ("text", "title\ntext"):
        p = encode([c["text"] if variant == "text" else f"{c['title']}\n{c['text']}" for c in corpus])
        top = np.argsort(-(q @ p.T), axis=1)[:, :5]
        recall = [len(set(top[i].tolist()) & set(x["gold_passage_idx"])) / len(set(x["gold_passage_idx"]))
                  for i, x in enumerate(questions)]
        out[variant] = [round(float(np.mean(recall[:500])), 3), round(float(np.mean(recall[500:])), 3)]
    return out


def scifact(encode, data: Path) -> dict[str, float]:
    docs = [json.loads(line) for part in sorted((data / "scifact").glob("corpus.part*.jsonl"))
            for line in part.read_text().splitlines()]
    qrels: dict[str, set[str]] = {}
    for line in (data / "scifact" / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, did, _ = line.split("\t")
        qrels.setdefault(qid, set()).add(did)
    claims = [c for c in (json.loads(line) for line in (data / "scifact" / "queries.jsonl").read_text().splitlines())
              if c["_id"] in qrels]
    q = encode([c["text"] for c in claims])
    ids = [d["_id"] for d in docs]
    out = {}
    for variant in ("text", "title\ntext"):
        p = encode([d["text"] if variant == "text" else f"{d['title']}\n{d['text']}" for d in docs])
        top = np.argsort(-(q @ p.T), axis=1)[:, :10]
        ndcg = []
        for i, c in enumerate(claims):
            rel = qrels[c["_id"]]
            dcg = sum(1 / math.log2(r + 2) for r, j in enumerate(top[i]) if ids[j] in rel)
            ndcg.append(dcg / sum(1 / math.log2(r + 2) for r in range(min(10, len(rel)))))
        out[variant] = round(float(np.mean(ndcg)), 4)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("-o", "--output", type=Path, default=Path(__file__).with_name("DENSE_TITLE.json"))
    args = ap.parse_args()
    embedder = load_embedder(EmbeddingSettings())
    t0 = time.time()
    result = {"model": embedder.name, "2wiki_r5_q1-500_q501-1000": two_wiki(embedder.encode, args.data),
              "scifact_ndcg10": scifact(embedder.encode, args.data), "seconds": round(time.time() - t0)}
    args.output.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
