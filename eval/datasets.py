"""Evaluation datasets: BEIR, the 2Wiki multi-hop format, and our own golden-set format.

Every dataset ingests its units (passages or documents) with the source ``"<unit prefix>:<id>"``
so a chunk hit maps back to the unit its qrels judge. Each dataset also fingerprints the raw
files it was read from: results are stamped with it, and a stale results file is caught.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgrag.core.errors import IngestError, InvalidInputError
from kgrag.core.types import LoadedDocument
from kgrag.ingest.loaders import SUPPORTED_SUFFIXES, load_bytes, load_text
from kgrag.retrieval.conversation import Turn

SPLITS = ("tune", "heldout")
"""A golden question's ``split``: tuned on, or kept apart to report whether a number held up."""


@dataclass(frozen=True, slots=True)
class EvalQuestion:
    id: str
    text: str
    relevant: frozenset[str] = frozenset()
    keywords: tuple[str, ...] = ()
    should_refuse: bool = False
    kind: str = ""
    answers: tuple[str, ...] = ()
    """Acceptable short answers (aliases), any one of which is right; keywords are all expected in the text."""
    split: str = ""
    """"tune" or "heldout" where the set says; "" where the split is by position (2Wiki's first 500)."""
    conversation: tuple[Turn, ...] = ()
    """Earlier turns of a follow-up, which the product resolves the question against before retrieving."""

    @property
    def golds(self) -> tuple[str, ...]:
        """What a short answer is judged against: the aliases, else (2Wiki, older golden sets) the keywords."""
        return self.answers or self.keywords


@dataclass(frozen=True)
class Dataset:
    name: str
    format: str
    path: Path
    questions: tuple[EvalQuestion, ...]
    files: tuple[Path, ...]
    """The raw files the dataset was read from, in a fixed order (for the fingerprint)."""
    _documents: Callable[[], Iterator[LoadedDocument | Skipped]] = field(repr=False)
    skipped: list[Skipped] = field(default_factory=list, compare=False)
    """Units the last documents() pass could not load (an empty file): recorded, not fatal, as in `kgrag ingest`."""

    def documents(self) -> Iterator[LoadedDocument]:
        self.skipped.clear()
        for item in self._documents():
            if isinstance(item, Skipped):
                self.skipped.append(item)
            else:
                yield item

    def fingerprint(self) -> str:
        return fingerprint_files(self.files)

    def subset(self, limit: int | None) -> Dataset:
        """The first ``limit`` questions (the corpus stays whole, so distractors stay too)."""
        if limit is None or limit >= len(self.questions):
            return self
        return Dataset(self.name, self.format, self.path, self.questions[:limit], self.files, self._documents,
                       self.skipped)


@dataclass(frozen=True, slots=True)
class Skipped:
    source: str
    reason: str


def _loaded(source: str, load: Callable[[], LoadedDocument]) -> LoadedDocument | Skipped:
    try:
        return load()
    except IngestError as exc:
        return Skipped(source, str(exc))


def unit_of_source(source: str) -> str:
    return source.split(":", 1)[1] if ":" in source else source


def fingerprint_files(files: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.name.encode() + b"\0")
        with open(f, "rb") as fh:
            for block in iter(lambda fh=fh: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


NO_TITLES = "-no-titles"
"""Suffix of a dataset loaded with ``drop_titles``: its own name, so its own data home and results file."""


def load_dataset(path: Path, *, drop_titles: bool = False) -> Dataset:
    """Recognise the format from the files present, with an error that lists what each needs.

    ``drop_titles`` loads every document with no title (as a folder of files named by id would be): the
    check that retrieval, the graph above all, does not depend on a corpus whose documents name each other
    by title."""
    path = path.resolve()
    if path.is_file() and path.suffix == ".json" and _looks_golden(path):
        return load_golden(path, drop_titles=drop_titles)
    if path.is_dir() and (path / "corpus.json").exists() and (path / "queries.jsonl").exists():
        return load_multihop(path, drop_titles=drop_titles)
    if path.is_dir() and (path / "qrels").is_dir() and list(path.glob("corpus*.jsonl")):
        return load_beir(path, drop_titles=drop_titles)
    raise InvalidInputError(
        f"{path} is not a dataset kgrag knows",
        fix="give a BEIR folder (corpus*.jsonl, queries.jsonl, qrels/test.tsv), a multi-hop folder "
        "(corpus.json, queries.jsonl with gold_passage_idx) or a golden-set .json file",
    )


def _name(path: Path, drop_titles: bool) -> str:
    return path.name + (NO_TITLES if drop_titles else "")


def load_beir(path: Path, split: str = "test", *, drop_titles: bool = False) -> Dataset:
    corpus_files = tuple(sorted(path.glob("corpus*.jsonl")))
    qrels_path = path / "qrels" / f"{split}.tsv"
    relevant: dict[str, set[str]] = {}
    with open(qrels_path, newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if int(row["score"]) > 0:
                relevant.setdefault(row["query-id"], set()).add(row["corpus-id"])
    questions = []
    with open(path / "queries.jsonl") as fh:
        for line in fh:
            q = json.loads(line)
            if q["_id"] in relevant:
                questions.append(EvalQuestion(q["_id"], q["text"], frozenset(relevant[q["_id"]])))

    def documents() -> Iterator[LoadedDocument | Skipped]:
        for f in corpus_files:
            with open(f) as fh:
                for line in fh:
                    d = json.loads(line)
                    source = f"{path.name}:{d['_id']}"
                    title = "" if drop_titles else d.get("title") or d["_id"]
                    yield _loaded(source, lambda d=d, source=source, title=title: load_text(
                        d["text"], source=source, title=title))

    files = (*corpus_files, path / "queries.jsonl", qrels_path)
    return Dataset(_name(path, drop_titles), "beir", path, tuple(questions), files, documents)


def load_multihop(path: Path, *, drop_titles: bool = False) -> Dataset:
    corpus_path, queries_path = path / "corpus.json", path / "queries.jsonl"
    questions = []
    with open(queries_path) as fh:
        for line in fh:
            q = json.loads(line)
            questions.append(EvalQuestion(
                q["id"], q["question"], frozenset(str(i) for i in q["gold_passage_idx"]),
                keywords=tuple(a for a in q.get("answers", []) if a.lower() not in {"yes", "no"}),
                kind=q.get("type", ""),
            ))

    def documents() -> Iterator[LoadedDocument | Skipped]:
        for i, p in enumerate(json.loads(corpus_path.read_text())):
            source = f"{path.name}:{i}"
            title = "" if drop_titles else p["title"]
            yield _loaded(source, lambda p=p, source=source, title=title: load_text(p["text"], source=source,
                                                                                   title=title))

    return Dataset(_name(path, drop_titles), "multihop", path, tuple(questions), (corpus_path, queries_path), documents)


def _untitled(doc: LoadedDocument, drop_titles: bool) -> LoadedDocument:
    """The document as a titleless store holds it: the source stands in for the title (as ingest does for a
    document with none), so nothing the loader read from a heading or front matter names it."""
    return dataclasses.replace(doc, title=doc.source) if drop_titles else doc


def _looks_golden(path: Path) -> bool:
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and "questions" in data and "corpus" in data


def load_golden(path: Path, *, drop_titles: bool = False) -> Dataset:
    """Our own format: {"name", "corpus": folder relative to the file, "questions": [...]}.

    Each question: {"id", "question", "relevant": [file names], "keywords": [...], "should_refuse": bool}, and
    for the answer sets also "answers" (aliases), "split" ("tune" or "heldout") and "conversation" (earlier
    turns, [{"role": "user" | "assistant", "text": ...}]). A mistake in these is refused here, naming the
    question: a typo'd split or role would otherwise quietly move a question out of the numbers.
    """
    data = json.loads(path.read_text())
    corpus = (path.parent / data["corpus"]).resolve()
    if not corpus.is_dir():
        raise InvalidInputError(f"golden set {path} names a corpus folder {corpus} that does not exist",
                                fix="set \"corpus\" to a folder path relative to the golden-set file")
    files = tuple(sorted(f for f in corpus.rglob("*") if f.is_file() and f.suffix.lower() in SUPPORTED_SUFFIXES))
    name = data.get("name", path.stem) + (NO_TITLES if drop_titles else "")
    questions = tuple(_golden_question(path, i, q) for i, q in enumerate(data["questions"]))

    def documents() -> Iterator[LoadedDocument | Skipped]:
        for f in files:
            source = f"{name}:{f.relative_to(corpus).as_posix()}"
            yield _loaded(source, lambda f=f, source=source: _untitled(load_bytes(
                f.read_bytes(), source=source, suffix=f.suffix, default_title=f.stem), drop_titles))

    return Dataset(name, "golden", path, questions, (path, *files), documents)


def _golden_question(path: Path, i: int, q: dict[str, Any]) -> EvalQuestion:
    qid = str(q.get("id", i))

    def bad(what: str, fix: str) -> InvalidInputError:
        return InvalidInputError(f"question {qid} of {path} {what}", fix=fix)

    should_refuse = bool(q.get("should_refuse", False))
    answers = _strings(q.get("answers", []))
    if answers is None:
        raise bad("has \"answers\" that are not a list of strings", "write \"answers\": [\"alias\", ...]")
    if should_refuse and answers:
        raise bad("both expects answers and should be refused", "keep one of \"answers\" and \"should_refuse\"")
    split = q.get("split", "")
    if split and split not in SPLITS:
        raise bad(f"has split {split!r}", f"use one of {', '.join(SPLITS)}")
    turns = []
    for t in q.get("conversation") or []:
        if not isinstance(t, dict) or t.get("role") not in ("user", "assistant") or not isinstance(t.get("text"), str):
            raise bad(f"has a conversation turn {t!r}", "write each turn as {\"role\": \"user\" or \"assistant\", "
                      "\"text\": \"...\"}")
        turns.append(Turn(t["role"], t["text"]))
    if turns and not any(t.role == "user" for t in turns):
        raise bad("has a conversation with no user turn", "begin the conversation with the user's question")
    return EvalQuestion(
        qid, str(q["question"]), frozenset(q.get("relevant", [])),
        keywords=tuple(q.get("keywords", [])), should_refuse=should_refuse,
        kind=str(q.get("kind", "should_refuse" if should_refuse else "answerable")),
        answers=answers, split=str(split), conversation=tuple(turns),
    )


def _strings(value: object) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
        return tuple(value)
    return None
