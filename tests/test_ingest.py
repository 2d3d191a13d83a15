"""Ingestion against a real embedded PostgreSQL + pgvector: idempotence, replace, delete, atomicity."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from fpdf import FPDF
from kgrag.core.errors import NotFoundError
from kgrag.core.runtime import Runtime
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor

from tests.conftest import EXAMPLES_DIR


def make_ingestor(rt: Runtime) -> Ingestor:
    return Ingestor(rt.store, rt.checked_embedder(), rt.settings.chunking, rt.settings.embedding)


def chunk_ids(rt: Runtime) -> set[int]:
    return {c.id for c in rt.store.iter_chunks()}


def write_pdf(path: Path, pages: list[str]) -> None:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 10, text)
    pdf.output(str(path))


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    dest = tmp_path / "corpus"
    shutil.copytree(EXAMPLES_DIR, dest)
    return dest


def test_ingests_every_example_with_titles_from_each_format(runtime: Runtime, corpus: Path) -> None:
    report = make_ingestor(runtime).ingest_paths([corpus])
    files = sorted(p for p in corpus.iterdir())
    assert len(report.added) == len(files) and not report.failed
    titles = {Path(d.source).name: d.title for d in runtime.store.list_documents()}
    assert titles["aalto_shipyards.html"] == "Aalto Shipyards"  # <title>
    assert titles["northwind_dynamics.md"] == "Northwind Dynamics"  # first heading
    assert titles["tomas_berg.txt"] == "Tomas Berg"  # its heading line, not the file stem "tomas_berg"
    html_text = " ".join(c.text for c in runtime.store.iter_chunks() if c.title == "Aalto Shipyards")
    assert "Turku" in html_text and "console.log" not in html_text  # scripts are not content
    assert runtime.store.count_chunks() >= len(files)


def test_reingesting_unchanged_files_is_a_no_op(runtime: Runtime, corpus: Path) -> None:
    ingestor = make_ingestor(runtime)
    ingestor.ingest_paths([corpus])
    before_ids, before_version = chunk_ids(runtime), runtime.store.corpus_version()
    again = ingestor.ingest_paths([corpus])
    assert not again.added and not again.replaced and len(again.unchanged) == len(list(corpus.iterdir()))
    assert chunk_ids(runtime) == before_ids
    assert runtime.store.corpus_version() == before_version


def test_a_changed_file_replaces_its_old_chunks(runtime: Runtime, corpus: Path) -> None:
    ingestor = make_ingestor(runtime)
    ingestor.ingest_paths([corpus])
    target = corpus / "polar_cells.md"
    old_doc = next(d for d in runtime.store.list_documents() if d.source == str(target.resolve()))
    old_chunks = {c.id for c in runtime.store.iter_chunks() if c.document_id == old_doc.id}
    target.write_text("# Polar Cells\n\nPolar Cells moved its headquarters to Umeå in 2025.\n")

    report = ingestor.ingest_paths([target])

    assert report.replaced == [str(target.resolve())]
    docs = runtime.store.list_documents()
    assert len(docs) == len(list(corpus.iterdir()))
    texts = [c.text for c in runtime.store.iter_chunks() if c.source == str(target.resolve())]
    assert texts == ["# Polar Cells\n\nPolar Cells moved its headquarters to Umeå in 2025."]
    assert not old_chunks & chunk_ids(runtime)


def test_delete_removes_the_document_and_its_chunks_only(runtime: Runtime, corpus: Path) -> None:
    make_ingestor(runtime).ingest_paths([corpus])
    docs = runtime.store.list_documents()
    victim = docs[0]
    total = runtime.store.count_chunks()
    version = runtime.store.corpus_version()

    deleted = runtime.store.delete_document(victim.id)

    assert deleted.id == victim.id
    assert runtime.store.count_chunks() == total - victim.chunk_count
    assert all(c.document_id != victim.id for c in runtime.store.iter_chunks())
    assert len(runtime.store.list_documents()) == len(docs) - 1
    assert runtime.store.corpus_version() == version + 1
    with pytest.raises(NotFoundError, match="kgrag documents list"):
        runtime.store.delete_document(victim.id)


def test_a_failure_mid_document_leaves_nothing_of_it(runtime: Runtime) -> None:
    ingestor = make_ingestor(runtime)
    doc = load_text("Alpha. " * 400, source="mem:alpha", title="Alpha")
    drafts = ingestor.chunker.chunk_pages(doc.pages)
    good = runtime.embedder.encode([d.text for d in drafts])
    assert len(drafts) > 2
    # The last vector has the wrong dimension: Postgres rejects it after the document row and the
    # first chunks are already written inside the transaction.
    bad = [*list(good[:-1]), np.zeros(7, dtype=np.float32)]
    with pytest.raises(Exception, match="dimensions"):
        runtime.store.write_document(doc, drafts, bad)  # type: ignore[arg-type]
    assert runtime.store.list_documents() == []
    assert runtime.store.count_chunks() == 0
    assert runtime.store.corpus_version() == 0


def test_a_failed_replacement_keeps_the_previous_version(runtime: Runtime) -> None:
    ingestor = make_ingestor(runtime)
    ingestor.ingest_documents([load_text("Version one text.", source="mem:doc", title="Doc")])
    before = [(c.id, c.text) for c in runtime.store.iter_chunks()]
    newer = load_text("Version two text. " * 300, source="mem:doc", title="Doc")
    drafts = ingestor.chunker.chunk_pages(newer.pages)
    vectors = [*list(runtime.embedder.encode([d.text for d in drafts])[:-1]), np.zeros(3, dtype=np.float32)]
    with pytest.raises(Exception, match="dimensions"):
        runtime.store.write_document(newer, drafts, vectors)  # type: ignore[arg-type]
    assert [(c.id, c.text) for c in runtime.store.iter_chunks()] == before


def test_bad_files_are_reported_and_the_rest_of_the_batch_goes_in(runtime: Runtime, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n\nKelp forests grow along the coast of Norway.\n")
    (folder / "empty.txt").write_text("")
    (folder / "garbage.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf \x00\x01\x02")
    (folder / "binary.txt").write_bytes(bytes(range(256)) * 4)
    (folder / "latin1.txt").write_bytes("Smørbrød på Ålesund café".encode("latin-1"))
    write_pdf(folder / "paged.pdf", ["First page about fjords.", "Second page about glaciers."])

    report = make_ingestor(runtime).ingest_paths([folder, tmp_path / "missing.md"])

    failed = {Path(src).name: reason for src, reason in report.failed}
    assert set(failed) == {"empty.txt", "garbage.pdf", "binary.txt", "missing.md"}
    assert "empty" in failed["empty.txt"]
    assert "not a readable PDF" in failed["garbage.pdf"]
    assert "binary" in failed["binary.txt"]
    assert "no such file" in failed["missing.md"]
    assert sorted(Path(s).name for s in report.added) == ["good.md", "latin1.txt", "paged.pdf"]
    latin = next(d for d in runtime.store.list_documents() if d.source.endswith("latin1.txt"))
    assert "replacement" in latin.metadata["encoding_note"]
    pages = {c.page: c.text for c in runtime.store.iter_chunks() if c.source.endswith("paged.pdf")}
    assert "fjords" in pages[1] and "glaciers" in pages[2]


def test_stored_embeddings_match_the_model(runtime: Runtime) -> None:
    make_ingestor(runtime).ingest_documents([load_text("Turku is a city in Finland.", source="m:t", title="Turku")])
    with runtime.db.connection() as conn:
        stored = conn.execute("SELECT text, embedding FROM chunks").fetchone()
    expected = runtime.embedder.encode([stored[0]])[0]
    assert np.allclose(stored[1].to_numpy(), expected, atol=1e-5)


def test_a_new_chunking_config_rechunks_unchanged_files(runtime: Runtime, corpus: Path, make_settings) -> None:  # type: ignore[no-untyped-def]
    make_ingestor(runtime).ingest_paths([corpus])
    before = runtime.store.count_chunks()
    smaller = make_settings(chunking={"size": 24, "overlap": 4})
    ingestor = Ingestor(runtime.store, runtime.embedder, smaller.chunking, smaller.embedding)

    report = ingestor.ingest_paths([corpus])

    assert len(report.replaced) == len(list(corpus.iterdir())) and not report.unchanged
    assert runtime.store.count_chunks() > before
    assert all(n <= 24 for n in runtime.embedder.count_tokens([c.text for c in runtime.store.iter_chunks()]))
    assert not ingestor.ingest_paths([corpus]).replaced  # and now it is unchanged again
