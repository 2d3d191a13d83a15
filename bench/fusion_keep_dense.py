"""What would fusion lose or gain by keeping what dense is sure of in the top 5 (issue 44)? Read off eval output.

Not a test, and no retrieval is run: every eval results file holds each configuration's ranked list per question
(`kgrag eval run --ablate`), so a rule applied after fusion can be replayed on them. For each rule, the fused
top 5 keeps the passages the rule names: each one missing displaces the lowest fused passage the rule does not
name. Reported per half (2Wiki's first 500 questions are the tuning half) and with no rule: R@5, and how many
questions lose a gold passage that dense alone had in its top 5.

    python bench/fusion_keep_dense.py eval/results/2wikimultihopqa.json eval/results/2wikimultihopqa-no-titles.json

A replay, not a re-run: the rule changes nothing upstream of the top 5, as it would not in the pipeline either.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from kgrag.eval.metrics import lost_from

Rule = Callable[[Sequence[str], Sequence[str]], list[str]]
RULES: dict[str, Rule] = {
    "none": lambda d, b: [],
    "dense top 1": lambda d, b: list(d[:1]),
    "dense top 2": lambda d, b: list(d[:2]),
    "dense top 1, and a dense top-3 hit BM25 ranks top 3": lambda d, b: list(dict.fromkeys(
        [*d[:1], *(x for x in d[:3] if x in b[:3])])),
    "dense top 1, and a dense top-2 hit BM25 ranks top 5": lambda d, b: list(dict.fromkeys(
        [*d[:1], *(x for x in d[:2] if x in b[:5])])),
}


def keep(fused: Sequence[str], must: Sequence[str], k: int = 5) -> list[str]:
    top = list(fused[:k])
    for wanted in (m for m in must if m not in fused[:k]):
        spare = next((j for j in range(len(top) - 1, -1, -1) if top[j] not in must), None)
        if spare is None:
            break
        top.pop(spare)
        top.append(wanted)
    return top + [x for x in fused if x not in top]


def replay(path: Path, tuned: int) -> list[str]:
    results = json.loads(path.read_text())
    runs = {r["name"]: {q["id"]: q["ranked"] for q in r["questions"]} for r in results["runs"]}
    qrels = results["qrels"]
    # The questions in the order they were asked: the tuned half is the first 500 asked (eval report --split), not
    # the first 500 ids; qrels are stored sorted by id.
    ids = [q["id"] for q in results["runs"][0]["questions"] if qrels[q["id"]].get("relevant")]
    halves = [(f"q1-{tuned}", ids[:tuned]), (f"q{tuned + 1}-{len(ids)}", ids[tuned:])] if tuned else [("all", ids)]
    dense, bm25, fused = runs["dense"], runs["bm25"], runs["dense+bm25+graph"]
    lines = [f"{path.name}", "", "| rule | half | R@5 | lost a dense top-5 gold passage |", "|---|---|---:|---:|"]
    for name, rule in RULES.items():
        for half, sel in halves:
            recall = lost = 0.0
            for i in sel:
                gold = set(qrels[i]["relevant"])
                ranked = keep(fused[i], rule(dense[i], bm25[i]))
                recall += len(set(ranked[:5]) & gold) / len(gold)
                lost += lost_from(dense[i], ranked, gold)
            lines.append(f"| {name} | {half} | {recall / len(sel):.3f} | {int(lost)}/{len(sel)} "
                         f"({lost / len(sel):.1%}) |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, nargs="+")
    ap.add_argument("--tuned", type=int, default=500, help="questions in the tuning half (0: one half)")
    args = ap.parse_args()
    for path in args.results:
        print("\n".join(replay(path, args.tuned)), end="\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
