"""The dense gate's calibration against questions no corpus here answers (retrieval/gate.py's figures).

Not a test. For each data home (an eval home, built by `kgrag eval run`), asks the questions of one golden set's
split (in-corpus) and the general-knowledge questions of bench/data/general_knowledge.txt (out-of-corpus: plain
trivia, written without looking at any corpus), and records per question the best dense cosine among the
retrieved hits, the names the question writes, and whether the support check finds them in the passages an
answer would read. Then, for the gate's two floors (``min_dense_similarity`` and, for a question anchored in
its passages, ``min_dense_similarity_named``), how many of each pass.

    HF_HUB_OFFLINE=1 python bench/gate_calibration.py \
        --run .kgrag/eval/harbour_agency eval/golden/harbour_agency.json \
        --run .kgrag/eval/examples-answers eval/golden/examples-answers.json \
        --run .kgrag/eval/2wikimultihopqa - --out bench/out/gate_calibration.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
GENERAL = REPO / "bench" / "data" / "general_knowledge.txt"


def measure(home: Path, golden: str, split: str) -> list[dict[str, Any]]:
    from kgrag.api.cli.common import load_settings
    from kgrag.core.runtime import Runtime
    from kgrag.core.settings import DatabaseSettings
    from kgrag.eval.datasets import load_dataset
    from kgrag.eval.runner import CHUNK_DEPTH, standalone_of
    from kgrag.retrieval.answer.grounded import answer_passages, evidence_from
    from kgrag.retrieval.answer.support import check_support
    from kgrag.retrieval.pipeline import build_pipeline

    asked: list[tuple[str, str, str]] = []
    settings = load_settings().model_copy(update={"home": home, "database": DatabaseSettings(),
                                                  "workspace": "default"})
    rows = []
    with Runtime(settings) as rt:
        nlp = rt.spacy()
        if golden != "-":
            for q in load_dataset(Path(golden)).questions:
                if split == "all" or q.split == split:
                    standalone = standalone_of(q, nlp, None)
                    asked.append((q.id, q.kind, standalone.question if standalone else q.text))
        general = [line.strip() for line in GENERAL.read_text().splitlines() if line.strip()]
        asked += [(f"general{i + 1}", "out_of_corpus", text) for i, text in enumerate(general)]
        pipeline = build_pipeline(rt, builder=True)
        pipeline.warm()
        try:
            for qid, kind, text in asked:
                result = pipeline.run(text, top_k=CHUNK_DEPTH, rerank=False)
                support = check_support(text, answer_passages(result, rt.settings), nlp)
                rows.append({"id": qid, "kind": kind, "question": text,
                             "best_dense": evidence_from(result, rt.settings).best_dense,
                             "names": list(support.needs.entities), "support_ok": support.ok,
                             "anchored": support.ok and bool(support.needs.entities)})
        finally:
            pipeline.close()
    return rows


def summary(rows: list[dict[str, Any]], floor: float, named_floor: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for group, members in (("in_corpus", [r for r in rows if r["kind"] != "out_of_corpus"]),
                           ("out_of_corpus", [r for r in rows if r["kind"] == "out_of_corpus"])):
        dense = sorted(r["best_dense"] for r in members if r["best_dense"] is not None)
        if not dense:
            continue
        plain = sum(1 for r in members if (r["best_dense"] or 0) >= floor)
        gated = sum(1 for r in members if (r["best_dense"] or 0) >= (named_floor if r["anchored"] else floor))
        passed_check = sum(1 for r in members if (r["best_dense"] or 0) >= (named_floor if r["anchored"] else floor)
                           and r["support_ok"])
        out[group] = {"questions": len(members), "dense_min": round(dense[0], 3),
                      "dense_median": round(dense[len(dense) // 2], 3), "dense_max": round(dense[-1], 3),
                      f"pass_dense_{floor:g}": plain, "pass_with_named_floor": gated,
                      "pass_gate_and_support_check": passed_check}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", nargs=2, action="append", metavar=("HOME", "GOLDEN"), required=True,
                    help="a data home and the golden set its in-corpus questions come from ('-': none)")
    ap.add_argument("--split", default="tune", help="which split of each golden set (tune, heldout, all)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "gate_calibration.json")
    args = ap.parse_args()
    from kgrag.core.settings import AnswerSettings

    defaults = AnswerSettings()
    result: dict[str, Any] = {"floor": defaults.min_dense_similarity,
                              "named_floor": defaults.min_dense_similarity_named, "homes": {}}
    for home, golden in args.run:
        rows = measure(Path(home), golden, args.split)
        result["homes"][home] = {"golden": golden, "split": args.split, "rows": rows,
                                 "summary": summary(rows, defaults.min_dense_similarity,
                                                    defaults.min_dense_similarity_named)}
        print(home, json.dumps(result["homes"][home]["summary"], indent=1), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
