"""Test corpus for the retrieval tests: real SciFact abstracts plus a few planted documents.

The SciFact passages are a committed slice under tests/data/scifact (see its SOURCE.md), so the
suite runs from a bare clone; the planted documents each exist to make one retriever's strength
observable.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import DatabaseSettings, Settings
from kgrag.core.types import LoadedDocument
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor, IngestReport
from kgrag.retrieval.maintenance import publish_bm25

SCIFACT = Path(__file__).resolve().parent / "data" / "scifact"

# Only BM25 can find this one: the code "VXQ-88217" carries no meaning an embedding model could
# match, and the rest of the passage is about something else (checked: dense ranks it ~50th of 660).
RARE_TERM_DOC = ("planted/echo", "Echocardiography after beta-blockers",
                 "Echocardiography in 212 patients with heart failure showed reduced ejection fraction after "
                 "six months of beta-blocker therapy. Reference code VXQ-88217.")
RARE_TERM_QUERY = "VXQ-88217"

# Only dense can find this one: the query shares no word (after stemming) with the passage.
PARAPHRASE_DOC = ("planted/feline", "A quiet afternoon",
                  "The kitten dozed on the rug by the window for hours, purring in the warm light.")
PARAPHRASE_QUERY = "cat napping on a carpet in the sunshine"

# Both signals rank these (each for its own reasons), neither always first: fusion material.
BEES_DOCS = (
    ("planted/honeybee", "Honeybee foraging",
     "A honeybee forager returns to the hive by memorising landmarks and tracking the sun's angle."),
    ("planted/insects", "Orientation in pollinators",
     "Pollinating insects use the position of the sun to orient themselves when flying back to their colony "
     "after foraging."),
)
BEES_QUERY = "how do bees find their way back to the hive"

PLANTED = (RARE_TERM_DOC, PARAPHRASE_DOC, *BEES_DOCS)


def scifact_docs(limit: int, *, offset: int = 0) -> Iterator[dict[str, str]]:
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
        for seen, line in enumerate(fh):
            if seen >= offset + limit:
                return
            if seen >= offset:
                yield json.loads(line)


def scifact_loaded(limit: int, *, offset: int = 0) -> list[LoadedDocument]:
    return [load_text(d["text"], source=f"scifact/{d['_id']}", title=d["title"], metadata={"corpus": "scifact"})
            for d in scifact_docs(limit, offset=offset)]


def planted_loaded(docs: Iterable[tuple[str, str, str]] = PLANTED) -> list[LoadedDocument]:
    return [load_text(text, source=src, title=title, metadata={"corpus": "planted"}) for src, title, text in docs]


def ingest(rt: Runtime, docs: Iterable[LoadedDocument], *, publish: bool = True) -> IngestReport:
    """Ingest as `kgrag ingest` does: the documents, then the BM25 index published for every reader."""
    s = rt.settings
    report = Ingestor(rt.store, rt.checked_embedder(), s.chunking, s.embedding).ingest_documents(docs)
    assert not report.failed, report.failed
    if publish:
        publish_bm25(rt)
    return report


SCIFACT_COUNT = 100
_templates: dict[str, str] = {}
_template_lock = threading.Lock()


def _database_url(server_url: str, name: str) -> str:
    base, _, query = server_url.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


def _create_database(server_url: str, name: str, *, template: str | None = None) -> str:
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return _database_url(server_url, name)


def _template(server_url: str, embedder: Embedder, scratch: Path) -> str:
    """Ingest the corpus once per test process (embedding is the slow part), as a template database."""
    with _template_lock:
        if server_url not in _templates:
            name = f"tpl_{uuid.uuid4().hex[:10]}"
            url = _create_database(server_url, name)
            settings = Settings(_env_file=None, home=scratch, database=DatabaseSettings(url=url))
            with Runtime(settings, embedder=embedder) as rt:
                ingest(rt, scifact_loaded(SCIFACT_COUNT) + planted_loaded())
            _templates[server_url] = name
        return _templates[server_url]


@contextmanager
def corpus_runtime(server_url: str, embedder: Embedder, tmp: Path) -> Iterator[Runtime]:
    """A Runtime on a private copy of the corpus database (CREATE DATABASE … TEMPLATE is a file copy)."""
    template = _template(server_url, embedder, tmp / "template-home")
    url = _create_database(server_url, f"t_{uuid.uuid4().hex[:12]}", template=template)
    settings = Settings(_env_file=None, home=tmp / "home", database=DatabaseSettings(url=url))
    with Runtime(settings, embedder=embedder) as rt:
        yield rt


def source_of(rt: Runtime) -> dict[int, str]:
    return {c.id: c.source for c in rt.store.iter_chunks()}
