"""What a query returns: the ranked passages and the result of one pipeline run.

They live below both the pipeline that makes them and the answer stage that reads them (retrieval/answer/),
so the answer stage never imports the pipeline, which itself imports the answer stage's text model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgrag.retrieval.base import StageStatus

RERANK = "rerank"
EMPTY_STORE = ("the store is empty: no documents have been ingested yet, so nothing can be found; "
               "run `kgrag ingest PATH` (or upload to POST /v1/documents) first")


@dataclass(frozen=True, slots=True)
class PassageHit:
    """A final passage with everything needed to cite it and to explain why it is here."""

    rank: int
    chunk_id: int
    document_id: int
    text: str
    source: str
    title: str
    page: int | None
    fused_score: float
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
    rerank_score: float | None = None
    explanations: dict[str, dict[str, Any]] = field(default_factory=dict)
    """List name → why that list returned this passage (the graph: linked node → … → this document)."""
    position: int | None = None
    """The chunk's place in its document (0-based): what a citation shows, not the chunk's database id."""
    subject: str | None = None
    """What the document is called in prose (kg.subjects.passage_subject); None when not looked up."""

    @property
    def graph_entities(self) -> tuple[str, ...]:
        """Entities the graph linked or bridged to reach this chunk, from every graph list that found it."""
        names: dict[str, None] = {}
        for name, why in self.explanations.items():
            if name.split("@", 1)[0] == "graph":
                names.update(dict.fromkeys([*why.get("path", ()), *why.get("entities", ())]))
        return tuple(names)


@dataclass(frozen=True, slots=True)
class PipelineResult:
    question: str
    signals: tuple[str, ...]
    hits: tuple[PassageHit, ...]
    statuses: dict[str, StageStatus]
    """One entry per requested signal, plus "rerank"."""
    timings: dict[str, float]
    """Seconds: per signal ("dense", with sub-stages as "dense.embed"), "fusion", "fetch", "rerank", "total"."""
    explanations: dict[str, dict[str, Any]] = field(default_factory=dict)
    hit_counts: dict[str, int] = field(default_factory=dict)
    """Candidates each list returned before fusion (tells "ran but found nothing" from "ran")."""
    fused_lists: tuple[str, ...] = ()
    """Every ranked list fusion combined: the signals that ran, and any "signal@label" lists of the LLM
    query stages."""
    fusion_weights: dict[str, float] = field(default_factory=dict)
    """The RRF weight each signal got for this query: configured weight × the retriever's own confidence."""
    corpus_empty: bool = False
    """Nothing is stored at all (checked only when no passage came back): the fix is to ingest."""
    hop: str = ""
    """The second hop's question, when one ran (retrieval/answer/hop.py): the described subject replaced by
    the bridge the first passages name ("In which town is Brightwater Fuels based?")."""
    hop_added: int = 0
    """Passages the second hop added after the first ``answer.max_passages``: the answer reads them too."""

    @property
    def warnings(self) -> list[str]:
        """A line per stage that did not run, or ran on a stale graph: shown to the user, never swallowed."""
        lines = [EMPTY_STORE] if self.corpus_empty else []
        for stage, status in self.statuses.items():
            if status.permanent:
                continue  # in ``notes``
            if status.state != "ran":
                lines.append(f"{stage} {status.state}: {status.reason}")
            elif self.explanations.get(stage, {}).get("stale"):
                lines.append(f"{stage} ran on a stale graph: {status.reason}")
        return lines

    @property
    def notes(self) -> list[str]:
        """A line per stage that cannot run in this process at all (no reranker weights): the same for every
        query, so a caller says it once (the CLI on its query, the API in ``stages``), not above every answer."""
        return [f"{stage} {status.state}: {status.reason}" for stage, status in self.statuses.items()
                if status.permanent and status.state != "ran"]

    @property
    def load_seconds(self) -> float:
        """One-off loading inside this run (models, index files): the rest of ``total`` is the query itself.

        The retrievers load in parallel, so only the longest of their loads is on the query's path; the
        reranker loads after them."""
        loads = {stage: secs for stage, secs in self.timings.items() if stage.endswith(".load")}
        rerank = loads.pop(f"{RERANK}.load", 0.0)
        return max(loads.values(), default=0.0) + rerank
