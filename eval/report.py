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
from kgrag.eval.metrics import lost_from, mean, percentile, retrieval_scores, short_answer_scores

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

Split = int | str
"""How a report keeps tuned questions apart: the first N (2Wiki), or ``FIELD``, each question's own ``split``."""
FIELD = "field"


def parse_split(value: str | None) -> Split | None:
    """``--split`` as given: a question count, or "field" for the sets whose questions say their split."""
    if value is None:
        return None
    if value == FIELD:
        return FIELD
    if value.isdigit() and int(value) > 0:
        return int(value)
    raise InvalidInputError(f"--split {value!r} is neither a question count nor {FIELD!r}",
                            fix="give --split 500 (the first 500 were tuned on) or --split field (each "
                                "question's \"split\": tune or heldout)")


def has_split_field(results: dict[str, Any]) -> bool:
    return any("split" in q for q in results["qrels"].values())


def partition(results: dict[str, Any], split: Split) -> list[tuple[str, list[dict[str, Any]]]]:
    """The questions of the first run, tuned then held out, each part with its label. Every run asks the
    same questions in the same order, so callers select a run's rows by the ids of these."""
    qrels = results["qrels"]
    rows = results["runs"][0]["questions"] if results["runs"] else []
    if split == FIELD:
        if not has_split_field(results):
            raise InvalidInputError("--split field: no question of this run says its split",
                                    fix="give a question count (--split 500), or add \"split\" to the golden set")
        parts = [(part, [r for r in rows if qrels[r["id"]].get("split") == part]) for part in ("tune", "heldout")]
        return [(part, part_rows) for part, part_rows in parts if part_rows]  # a blind set has no tune half
    n = len(rows)
    if not isinstance(split, int) or not 0 < split < n:
        raise InvalidInputError(f"--split {split} leaves no questions on one side (the run has {n})",
                                fix=f"give a split between 1 and {n - 1}")
    return [(f"q1–{split} (tuned)", rows[:split]), (f"q{split + 1}–{n} (held out)", rows[split:])]


def answer_scores(rows: list[dict[str, Any]], qrels: dict[str, Any]) -> dict[str, Any]:
    """Every answer-stage number for some answered rows: short-answer precision and coverage (see
    ``metrics.short_answer_scores``), refusal precision and recall, false refusals (refused among the
    answerable), EM and F1, and the counts they divide."""
    rows = [r for r in rows if "refused" in r]
    due = [qrels[r["id"]]["should_refuse"] for r in rows]
    out: dict[str, Any] = short_answer_scores(
        (qrels[r["id"]]["should_refuse"], r["refused"], r.get("short_answer", "") or "",
         qrels[r["id"]].get("answers") or qrels[r["id"]].get("keywords") or []) for r in rows)
    answerable = [r["refused"] for r, d in zip(rows, due, strict=True) if not d]
    out.update(refusal_scores([r["refused"] for r, d in zip(rows, due, strict=True) if d], answerable))
    out["false_refusals"] = mean([1.0 if x else 0.0 for x in answerable]) if answerable else None
    out["n"], out["answerable"] = len(rows), len(answerable)
    out["refused_right"] = sum(1 for r, d in zip(rows, due, strict=True) if d and r["refused"])
    out["refused"], out["due"] = sum(1 for r in rows if r["refused"]), sum(due)
    for key in ("answer_em", "answer_f1"):
        values = [r[key] for r in rows if key in r]
        out[key] = mean(values) if values else None
    return out


GOLDEN_KINDS = ("single", "multihop", "near_miss", "absent", "followup")
"""The answer sets' kinds in reading order; any other kind a set uses follows them."""


def answers_block_name(name: str) -> str:
    return f"{name}:answers"


def answers_markdown(results: dict[str, Any], *, source: str, split: Split | None = None) -> str:
    """The answer stage on its own: per question kind, answer keyword recall, short-answer EM and F1,
    short-answer precision and coverage and false refusals, then refusal precision and recall, for every
    run that answered. ``split``: only the questions after it (the held-out part of a set whose first
    questions were tuned on). A set whose questions say their split gets ``golden_answers_markdown``."""
    if has_split_field(results):
        if split not in (None, FIELD):
            raise InvalidInputError("this set's questions say their own split; --split N would cut across it",
                                    fix="leave --split out (or give --split field)")
        return golden_answers_markdown(results, source=source)
    if split == FIELD:
        raise InvalidInputError("--split field: no question of this run says its split", fix="give --split N")
    qrels = results["qrels"]
    st = results["stamp"]
    head = ["configuration", "questions", "n", "kw recall", "EM", "F1", "short P", "coverage", "false refusals"]
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
        kinds = [k for k in dict.fromkeys(qrels[r["id"]].get("kind") or "answerable" for r in rows)
                 if k != "should_refuse"]
        groups = [(ANSWER_KINDS.get(k, k), [r for r in rows if (qrels[r["id"]].get("kind") or "answerable") == k])
                  for k in kinds]
        if len(kinds) > 1:  # the one number a target is set on; a short answer to an unanswerable one counts
            groups.append(("**all**", rows))
        for label, of_kind in groups:
            answerable = [r for r in of_kind if not qrels[r["id"]]["should_refuse"]]
            cells = [_mean_of(answerable, key) for key in ("keyword_recall", "answer_em", "answer_f1")]
            scores = answer_scores(of_kind, qrels)
            cells += [_ratio(scores["short_precision"], scores["short_right"], scores["short_given"]),
                      _fmt(scores["coverage"]), _fmt(scores["false_refusals"])]
            lines.append(f"| {run['name']} | {label} | {len(answerable)} | " + " | ".join(cells) + " |")
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


def golden_answers_markdown(results: dict[str, Any], *, source: str) -> str:
    """Issue 42's answer table for a set whose questions say their kind and split: per kind, tuned and held-out
    questions apart, for the three-signal run; then every configuration over all kinds. Counts stand beside
    the ratios: on a few questions per kind, 0.500 means little without them."""
    qrels = results["qrels"]
    st = results["stamp"]
    answered = [run for run in results["runs"] if any("refused" in r for r in run["questions"])]
    if not answered:
        raise InvalidInputError("this results file has no answers", fix="run `kgrag eval run --answers` first")
    main = next((run for name in ("dense+bm25+graph +rerank", "dense+bm25+graph") for run in answered
                 if run["name"] == name), answered[-1])
    parts = partition(results, FIELD)
    used = {qrels[q]["kind"] for q in qrels}
    kinds = [k for k in GOLDEN_KINDS if k in used] + sorted(used - set(GOLDEN_KINDS))
    head = ["split", "kind", "n", "short P (right/given)", "coverage", "refusal P", "refusal R (refused/due)",
            "false refusals", "EM", "F1"]
    lines = [f"**{st['dataset']['name']}** answers ({st['models'].get('answerer') or 'no answerer'}), "
             f"configuration `{main['name']}`, config hash `{st['config_hash']}`, commit "
             f"`{(st['git'].get('commit') or 'unknown')[:10]}`{' (dirty)' if st['git'].get('dirty') else ''}.", "",
             "| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    by_id = {r["id"]: r for r in main["questions"]}
    for part, part_rows in parts:
        rows = [by_id[r["id"]] for r in part_rows]
        for kind in [*kinds, "all"]:
            of_kind = [r for r in rows if kind == "all" or qrels[r["id"]]["kind"] == kind]
            if not of_kind:
                continue
            lines.append(f"| {part} | {'**all**' if kind == 'all' else kind} | " + " | ".join(
                _answer_cells(answer_scores(of_kind, qrels), em_f1=True)) + " |")
    head = ["configuration", "split", "n", "short P (right/given)", "coverage", "refusal P",
            "refusal R (refused/due)", "false refusals"]
    lines += ["", "Every configuration, all kinds:", "", "| " + " | ".join(head) + " |",
              "|---|---|" + "---:|" * (len(head) - 2)]
    for run in answered:
        by_id = {r["id"]: r for r in run["questions"]}
        for part, part_rows in parts:
            scores = answer_scores([by_id[r["id"]] for r in part_rows], qrels)
            lines.append(f"| {run['name']} | {part} | " + " | ".join(_answer_cells(scores, em_f1=False)) + " |")
    lines += ["", f"_Generated by `kgrag eval report {source} --answers` from the raw per-question rows: tune and "
                  "heldout are the questions' own split; do not edit._"]
    return "\n".join(lines) + "\n"


def _answer_cells(s: dict[str, Any], *, em_f1: bool) -> list[str]:
    cells = [str(s["n"]), _ratio(s["short_precision"], s["short_right"], s["short_given"]),
             _ratio(s["coverage"], s["answerable_given"], s["answerable_judged"]),
             _fmt(s["refusal_precision"]),
             _ratio(s["refusal_recall"], s["refused_right"], s["due"]), _fmt(s["false_refusals"])]
    if em_f1:
        cells += [_fmt(s["answer_em"]), _fmt(s["answer_f1"])]
    return cells


def _ratio(value: float | None, num: int, den: int) -> str:
    return "–" if value is None else f"{value:.3f} ({num}/{den})"


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


def split_markdown(results: dict[str, Any], *, split: Split, source: str) -> str:
    """The tuned questions (the first ``split``, or those whose ``split`` says tune) and the held-out rest side
    by side, with R@5 per question type.

    Anything tuned on a dataset is tuned on its tuned questions only; this table keeps the rest apart so a
    reader sees whether a number held up on questions nobody looked at.
    """
    qrels = results["qrels"]
    parts = partition(results, split)
    kinds = sorted({q.get("kind", "") for q in qrels.values()} - {""})
    head = ["configuration", "questions", "R@2", "R@5", "nDCG@10", *(f"R@5 {k}" for k in kinds)]
    if split == FIELD:
        intro = "Split by each question's own `split`: tune was used for tuning, heldout was held out."
    else:
        n = len(results["runs"][0]["questions"])
        intro = f"Split at question {split}: q1–{split} were used for tuning, q{split + 1}–{n} were held out."
    lines = [intro, "", "| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    for run in results["runs"]:
        if run["name"] not in SPLIT_RUNS:
            continue
        by_id = {r["id"]: r for r in run["questions"]}
        for part, part_rows in parts:
            rows = [by_id[r["id"]] for r in part_rows]
            scores = [(qrels[r["id"]].get("kind", ""), retrieval_scores(r["ranked"], set(qrels[r["id"]]["relevant"])))
                      for r in rows if qrels[r["id"]]["relevant"]]
            cells = [f"{mean([s[key] for _, s in scores]):.3f}" for key in ("recall@2", "recall@5", "ndcg@10")]
            for kind in kinds:
                of_kind = [s["recall@5"] for k, s in scores if k == kind]
                cells.append(f"{mean(of_kind):.3f}" if of_kind else "–")
            lines.append(f"| {run['name']} | {part} | " + " | ".join(cells) + " |")
    lines += graph_weight_lines(results, parts, kinds)
    lines += dense_loss_lines(results, parts, kinds)
    part_arg = FIELD if split == FIELD else str(split)
    lines += ["", f"_Generated by `kgrag eval report {source} --split {part_arg}` from the raw per-question rows; "
                  "do not edit._"]
    return "\n".join(lines) + "\n"


def graph_weight_lines(results: dict[str, Any], parts: list[tuple[str, list[dict[str, Any]]]],
                       kinds: list[str]) -> list[str]:
    """How often fusion gave the graph any weight with all three signals, per part and question kind: a graph
    that is built and wired but weighted 0 never changes a ranking. Empty for results that did not record it."""
    run = next((r for r in results["runs"] if r["name"] == "dense+bm25+graph"), None)
    if run is None or not any("graph_weight" in r for r in run["questions"]):
        return []
    by_id = {r["id"]: r for r in run["questions"]}
    out = ["", "Questions where fusion gave the graph a weight above 0 (dense+bm25+graph):", ""]
    for part, part_rows in parts:
        rows = [by_id[r["id"]] for r in part_rows if "graph_weight" in by_id[r["id"]]]
        cells = []
        for kind in kinds or [""]:
            of_kind = [r for r in rows if results["qrels"][r["id"]].get("kind", "") == kind]
            if of_kind:
                weighted = sum(1 for r in of_kind if r["graph_weight"] > 0)
                cells.append(f"{kind or 'all'} {weighted}/{len(of_kind)}")
        out.append(f"- {part}: " + ", ".join(cells))
    return out


def dense_loss_lines(results: dict[str, Any], parts: list[tuple[str, list[dict[str, Any]]]],
                     kinds: list[str]) -> list[str]:
    """How often the three-signal list lost a gold passage that dense alone had in its top 5, per part and
    question kind: fusion should add what the other lists find, not trade away what dense was right about.
    Empty unless the run has both the dense and the three-signal configuration (`--ablate`)."""
    runs = {r["name"]: {q["id"]: q["ranked"] for q in r["questions"]} for r in results["runs"]}
    if "dense" not in runs or "dense+bm25+graph" not in runs:
        return []
    dense, fused, qrels = runs["dense"], runs["dense+bm25+graph"], results["qrels"]
    out = ["", "Questions where dense+bm25+graph lost a gold passage that dense alone had in its top 5:", ""]
    for part, part_rows in parts:
        lost = {r["id"]: lost_from(dense[r["id"]], fused[r["id"]], set(qrels[r["id"]]["relevant"]))
                for r in part_rows if qrels[r["id"]]["relevant"]}
        cells = [f"all {sum(lost.values())}/{len(lost)} ({sum(lost.values()) / max(len(lost), 1):.1%})"]
        for kind in kinds:
            of_kind = [v for q, v in lost.items() if qrels[q].get("kind", "") == kind]
            if of_kind:
                cells.append(f"{kind} {sum(of_kind)}/{len(of_kind)}")
        out.append(f"- {part}: " + ", ".join(cells))
    return out


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
