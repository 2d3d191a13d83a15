"""Reports from a results file: every number is recomputed from the raw per-question rows.

The Markdown carries the stamp (dataset fingerprint, config hash, commit) so a table can always
be traced to what produced it; `check_stamp` says when a results file no longer matches the
current default config or the data it names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kgrag.core.errors import InvalidInputError
from kgrag.core.settings import Settings
from kgrag.eval.metrics import mean, percentile, retrieval_scores

COLUMNS: list[tuple[str, str, str]] = [
    # (key, header, format)
    ("recall@2", "R@2", "{:.3f}"), ("recall@5", "R@5", "{:.3f}"), ("recall@10", "R@10", "{:.3f}"),
    ("hit@1", "Hit@1", "{:.3f}"), ("hit@5", "Hit@5", "{:.3f}"), ("mrr@10", "MRR@10", "{:.3f}"),
    ("ndcg@10", "nDCG@10", "{:.3f}"), ("keyword_recall", "kw recall", "{:.3f}"),
    ("answer_em", "EM", "{:.3f}"), ("answer_f1", "F1", "{:.3f}"),
    ("refusal_precision", "refusal P", "{:.3f}"), ("refusal_recall", "refusal R", "{:.3f}"),
    ("graph_fired", "graph fired", "{:.3f}"), ("graph_contribution", "graph-only top5", "{:.3f}"),
    ("latency_p50_ms", "p50 ms", "{:.1f}"), ("latency_p95_ms", "p95 ms", "{:.1f}"),
]


def load_results(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"cannot read results file {path} ({exc})",
                                fix="give a file written by `kgrag eval run`") from exc
    if not isinstance(data, dict) or "stamp" not in data or "runs" not in data:
        raise InvalidInputError(f"{path} is not a kgrag results file", fix="give a file written by `kgrag eval run`")
    return data


def aggregate(run: dict[str, Any], qrels: dict[str, Any]) -> dict[str, float | None]:
    rows = run["questions"]
    judged = [r for r in rows if qrels[r["id"]]["relevant"]]
    per_q = [retrieval_scores(r["ranked"], set(qrels[r["id"]]["relevant"])) for r in judged]
    out: dict[str, float | None] = {k: mean([s[k] for s in per_q]) if per_q else None for k in
                                    ("hit@1", "hit@3", "hit@5", "recall@2", "recall@5", "recall@10",
                                     "mrr@10", "ndcg@10")}
    kw = [r["keyword_recall"] for r in rows if "keyword_recall" in r]
    out["keyword_recall"] = mean(kw) if kw else None
    refuse = [r["refused"] for r in rows if "refused" in r and qrels[r["id"]]["should_refuse"]]
    answerable = [r["refused"] for r in rows if "refused" in r and not qrels[r["id"]]["should_refuse"]]
    out["refusal_accuracy"] = mean([1.0 if x else 0.0 for x in refuse]) if refuse else None
    out["false_refusals"] = mean([1.0 if x else 0.0 for x in answerable]) if answerable else None
    out.update(refusal_scores(refuse, answerable))
    em = [r["answer_em"] for r in rows if "answer_em" in r]
    f1 = [r["answer_f1"] for r in rows if "answer_f1" in r]
    out["answer_em"] = mean(em) if em else None
    out["answer_f1"] = mean(f1) if f1 else None
    fired = [r["graph_fired"] for r in rows if "graph_fired" in r]
    only = [r["graph_only_top5"] for r in rows if "graph_only_top5" in r]
    out["graph_fired"] = mean([1.0 if x else 0.0 for x in fired]) if fired else None
    out["graph_contribution"] = mean([1.0 if x else 0.0 for x in only]) if only else None
    lat = [r["latency_ms"] for r in rows]
    out["latency_p50_ms"] = percentile(lat, 50)
    out["latency_p95_ms"] = percentile(lat, 95)
    return out


def refusal_scores(refuse: list[bool], answerable: list[bool]) -> dict[str, float | None]:
    """Refusal precision (of the questions refused, the share that should have been) and recall (of the
    questions that should be refused, the share that were); None where there is nothing to divide by,
    except precision with no refusal at all when some were due: 0 then, not "undefined"."""
    right = sum(refuse)
    refused = right + sum(answerable)
    if not refuse and not answerable:
        return {"refusal_precision": None, "refusal_recall": None}
    return {"refusal_precision": right / refused if refused else (0.0 if refuse else None),
            "refusal_recall": right / len(refuse) if refuse else None}


ANSWER_KINDS = {"answerable": "single-hop", "multihop": "multi-hop", "should_refuse": "unanswerable"}


def answers_block_name(name: str) -> str:
    return f"{name}:answers"


def answers_markdown(results: dict[str, Any], *, source: str, split: int | None = None) -> str:
    """The answer stage on its own: per question kind, answer keyword recall, short-answer EM and F1 and
    false refusals, then refusal precision and recall, for every run that answered. ``split``: only the
    questions after it (the held-out part of a set whose first questions were tuned on)."""
    qrels = results["qrels"]
    st = results["stamp"]
    head = ["configuration", "questions", "n", "kw recall", "EM", "F1", "false refusals"]
    lines = [f"**{st['dataset']['name']}** answers ({st['models'].get('answerer') or 'no answerer'}), config hash "
             f"`{st['config_hash']}`, commit `{(st['git'].get('commit') or 'unknown')[:10]}`.", "",
             "| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    refusals: list[str] = []
    for run in results["runs"]:
        rows = [r for r in run["questions"] if "refused" in r]
        if split is not None:
            rows = rows[split:]
        if not rows:
            continue
        kinds = dict.fromkeys(qrels[r["id"]].get("kind") or "answerable" for r in rows)
        for kind in kinds:
            of_kind = [r for r in rows if (qrels[r["id"]].get("kind") or "answerable") == kind]
            if kind == "should_refuse":
                continue
            cells = [_mean_of(of_kind, key) for key in ("keyword_recall", "answer_em", "answer_f1")]
            cells.append(f"{mean([1.0 if r['refused'] else 0.0 for r in of_kind]):.3f}")
            lines.append(f"| {run['name']} | {ANSWER_KINDS.get(kind, kind)} | {len(of_kind)} | " + " | ".join(cells)
                         + " |")
        scores = refusal_scores([r["refused"] for r in rows if qrels[r["id"]]["should_refuse"]],
                                [r["refused"] for r in rows if not qrels[r["id"]]["should_refuse"]])
        if scores["refusal_recall"] is not None:
            refusals.append(f"{run['name']}: refusal precision {_fmt(scores['refusal_precision'])}, refusal recall "
                            f"{_fmt(scores['refusal_recall'])} "
                            f"({sum(1 for r in rows if qrels[r['id']]['should_refuse'])} unanswerable questions)")
    part = f" --split {split}" if split is not None else ""
    what = f"; questions after {split} only (held out)" if split is not None else ""
    lines += ["", *(f"- {line}" for line in refusals), *([""] if refusals else []),
              f"_Generated by `kgrag eval report {source} --answers{part}` from the raw per-question rows{what}; "
              "do not edit._"]
    return "\n".join(lines) + "\n"


def _mean_of(rows: list[dict[str, Any]], key: str) -> str:
    values = [r[key] for r in rows if key in r]
    return f"{mean(values):.3f}" if values else "–"


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def summary(results: dict[str, Any]) -> list[tuple[str, dict[str, float | None]]]:
    return [(run["name"], aggregate(run, results["qrels"])) for run in results["runs"]]


def markdown(results: dict[str, Any], *, source: str) -> str:
    st = results["stamp"]
    rows = summary(results)
    cols = [c for c in COLUMNS if any(m[c[0]] is not None for _, m in rows)]
    git = st["git"]
    lines = [
        f"**{st['dataset']['name']}** ({st['dataset']['format']}, {st['dataset']['questions']} questions, "
        f"{st['corpus']['documents']} documents, {st['corpus']['chunks']} chunks; "
        f"graph {st['corpus']['graph']['entities']} entities, {st['corpus']['graph']['edges']} edges). "
        f"Data fingerprint `{st['dataset']['fingerprint']}`, config hash `{st['config_hash']}`, "
        f"commit `{(git.get('commit') or 'unknown')[:10]}`{' (dirty)' if git.get('dirty') else ''}, "
        f"{st['created_at']}. Reranker: {_reranker_note(st)}.",
        "",
        "| configuration | " + " | ".join(h for _, h, _ in cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for name, m in rows:
        cells = [fmt.format(m[key]) if m[key] is not None else "–" for key, _, fmt in cols]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", f"_Generated by `kgrag eval report {source}` from the raw per-question rows; do not edit._"]
    return "\n".join(lines) + "\n"


SPLIT_RUNS = ("dense", "bm25", "graph", "dense+bm25", "dense+bm25+graph")


def split_block_name(name: str) -> str:
    return f"{name}:split"


def split_markdown(results: dict[str, Any], *, split: int, source: str) -> str:
    """The tuned questions (the first ``split``) and the held-out rest side by side, with R@5 per question type.

    Anything tuned on a dataset is tuned on its first questions only; this table keeps the rest apart so a
    reader sees whether a number held up on questions nobody looked at.
    """
    qrels = results["qrels"]
    n = len(results["runs"][0]["questions"]) if results["runs"] else 0
    if not 0 < split < n:
        raise InvalidInputError(f"--split {split} leaves no questions on one side (the run has {n})",
                                fix=f"give a split between 1 and {n - 1}")
    kinds = sorted({q.get("kind", "") for q in qrels.values()} - {""})
    head = ["configuration", "questions", "R@2", "R@5", "nDCG@10", *(f"R@5 {k}" for k in kinds)]
    lines = [f"Split at question {split}: q1–{split} were used for tuning, q{split + 1}–{n} were held out.", "",
             "| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    for run in results["runs"]:
        if run["name"] not in SPLIT_RUNS:
            continue
        for part, rows in ((f"q1–{split} (tuned)", run["questions"][:split]),
                           (f"q{split + 1}–{n} (held out)", run["questions"][split:])):
            scores = [(qrels[r["id"]].get("kind", ""), retrieval_scores(r["ranked"], set(qrels[r["id"]]["relevant"])))
                      for r in rows if qrels[r["id"]]["relevant"]]
            cells = [f"{mean([s[key] for _, s in scores]):.3f}" for key in ("recall@2", "recall@5", "ndcg@10")]
            for kind in kinds:
                of_kind = [s["recall@5"] for k, s in scores if k == kind]
                cells.append(f"{mean(of_kind):.3f}" if of_kind else "–")
            lines.append(f"| {run['name']} | {part} | " + " | ".join(cells) + " |")
    lines += ["", f"_Generated by `kgrag eval report {source} --split {split}` from the raw per-question rows; "
                  "do not edit._"]
    return "\n".join(lines) + "\n"


def _reranker_note(st: dict[str, Any]) -> str:
    rr = st["models"]["reranker"]
    if rr["available"]:
        return f"`{rr['model']}`"
    return f"not available ({rr['reason'] or 'unknown'}), rerank rows omitted"


def chart(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary(results)
    metrics = [("recall@2", "R@2"), ("recall@5", "R@5"), ("ndcg@10", "nDCG@10")]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(rows) + 2), 4.2))
    width = 0.8 / len(metrics)
    for i, (key, label) in enumerate(metrics):
        xs = [j + i * width for j in range(len(rows))]
        ax.bar(xs, [m[key] or 0.0 for _, m in rows], width, label=label)
    ax.set_xticks([j + width * (len(metrics) - 1) / 2 for j in range(len(rows))])
    ax.set_xticklabels([name for name, _ in rows], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    st = results["stamp"]
    ax.set_title(f"{st['dataset']['name']}: ablation (config {st['config_hash']})", fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def check_stamp(results: dict[str, Any], *, settings: Settings, repo_root: Path) -> list[str]:
    """Reasons the results no longer describe the current default system (empty: still valid)."""
    from kgrag.eval.datasets import load_dataset

    st = results["stamp"]
    problems = []
    if st["config_hash"] != settings.config_hash():
        problems.append(f"config hash {st['config_hash']} differs from the current default {settings.config_hash()}")
    if st["config"] != json.loads(json.dumps(settings.fingerprint_config())):
        problems.append("stamped config differs from the current default config")
    data_path = (repo_root / st["dataset"]["path"]).resolve()
    if not data_path.exists():
        problems.append(f"the data it names ({st['dataset']['path']}) is not there")
    else:
        current = load_dataset(data_path).fingerprint()
        if current != st["dataset"]["fingerprint"]:
            problems.append(f"data fingerprint {st['dataset']['fingerprint']} differs from the data now ({current})")
    return problems


def update_block(document: str, name: str, block: str) -> str:
    """Replace the text between <!-- eval:NAME --> and <!-- /eval:NAME --> markers."""
    pattern = re.compile(rf"(<!-- eval:{re.escape(name)} -->\n).*?(<!-- /eval:{re.escape(name)} -->)", re.DOTALL)
    if not pattern.search(document):
        raise InvalidInputError(f"no <!-- eval:{name} --> … <!-- /eval:{name} --> block found",
                                fix=f"add the two marker lines where the {name} table belongs")
    return pattern.sub(lambda m: m.group(1) + block + m.group(2), document)


def embedded_block(document: str, name: str) -> str | None:
    m = re.search(rf"<!-- eval:{re.escape(name)} -->\n(.*?)<!-- /eval:{re.escape(name)} -->", document, re.DOTALL)
    return m.group(1) if m else None
