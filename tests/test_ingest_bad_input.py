"""Hostile and broken inputs: each gets a clear per-file error (or is handled) and nothing half-stored remains."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from fpdf import FPDF
from kgrag.core.runtime import Runtime
from kgrag.core.settings import IngestSettings
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor
from pypdf import PdfReader, PdfWriter


def ingestor_for(rt: Runtime, **limits: int) -> Ingestor:
    s = rt.settings
    return Ingestor(rt.store, rt.checked_embedder(), s.chunking, s.embedding, IngestSettings(**limits))


def text_pdf(text: str) -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 10, text)
    return bytes(pdf.output())


def failures(report) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {Path(src).name: reason for src, reason in report.failed}


def test_encrypted_and_textless_pdfs_are_refused_with_the_fix(runtime: Runtime, tmp_path: Path) -> None:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(text_pdf("Secret plans for the harbour."))))
    writer.encrypt("hunter2")
    encrypted = io.BytesIO()
    writer.write(encrypted)
    (tmp_path / "locked.pdf").write_bytes(encrypted.getvalue())
    blank = FPDF()
    blank.add_page()
    blank.rect(20, 20, 100, 60, style="F")  # a drawing, no text layer
    (tmp_path / "scan.pdf").write_bytes(bytes(blank.output()))
    (tmp_path / "fine.pdf").write_bytes(text_pdf("Kelp forests grow along the coast."))

    report = ingestor_for(runtime).ingest_paths([tmp_path])

    failed = failures(report)
    assert "encrypted PDF" in failed["locked.pdf"] and "decrypt" in failed["locked.pdf"]
    assert "no text layer" in failed["scan.pdf"] and "OCR" in failed["scan.pdf"]
    assert [Path(s).name for s in report.added] == ["fine.pdf"]
    assert len(runtime.store.list_documents(status="indexed")) == 1
    remembered = {Path(d.source).name: d for d in runtime.store.list_documents(status="failed")}
    assert set(remembered) == {"locked.pdf", "scan.pdf"} and "decrypt" in remembered["locked.pdf"].status_reason


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(runtime: Runtime, tmp_path: Path) -> None:
    big = tmp_path / "huge.txt"
    with open(big, "wb") as fh:  # 100 MB of real text
        line = b"The harbour crane lifted another container onto the quay.\n"
        fh.write(line * (100_000_000 // len(line) + 1))
    (tmp_path / "small.txt").write_text("A small note about Bergen.")

    report = ingestor_for(runtime).ingest_paths([tmp_path])

    failed = failures(report)
    assert "above the 52 MB limit" in failed["huge.txt"] and "KGRAG_INGEST__MAX_FILE_BYTES" in failed["huge.txt"]
    assert [Path(s).name for s in report.added] == ["small.txt"]


def test_deeply_nested_html_is_handled(runtime: Runtime, tmp_path: Path) -> None:
    depth = 50_000
    html = "<html><head><title>Deep</title></head><body>" + "<div>" * depth + "Buried treasure near Turku."
    html += "</div>" * depth + "</body></html>"
    (tmp_path / "deep.html").write_text(html)

    report = ingestor_for(runtime).ingest_paths([tmp_path])

    if report.failed:  # refusing is acceptable if it says why
        assert "nested too deeply" in report.failed[0][1]
    else:
        texts = [c.text for c in runtime.store.iter_chunks()]
        assert any("Buried treasure near Turku." in t for t in texts)


def test_file_names_with_control_characters_are_ingested(runtime: Runtime, tmp_path: Path) -> None:
    odd = tmp_path / "weird\tname\x1b[31m.md"
    odd.write_text("# Odd\n\nA file with a strange name about Tallinn.")
    report = ingestor_for(runtime).ingest_paths([tmp_path])
    assert len(report.added) == 1 and not report.failed
    doc = runtime.store.list_documents()[0]
    # Stored spelled out, never raw: a listing must not turn red (or clear the screen) on a file's name.
    assert doc.source == str(odd.resolve()).replace("\t", "\\x09").replace("\x1b", "\\x1b")
    assert doc.title == "Odd"
    assert ingestor_for(runtime).ingest_paths([tmp_path]).unchanged == [doc.source]  # same source next time


def test_the_same_document_written_twice_at_once_is_stored_once(runtime: Runtime) -> None:
    ingestor = ingestor_for(runtime)
    doc = load_text("Aalto Shipyards built the Kelpie. " * 50, source="upload:same.txt", title="same")
    drafts = ingestor.chunker.chunk_pages(doc.pages)
    vectors = runtime.embedder.encode([d.text for d in drafts])
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def write() -> None:
        barrier.wait()
        outcomes.append(runtime.store.write_document(doc, drafts, vectors, ingest_key=ingestor.ingest_key).outcome)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert sorted(outcomes) == ["added", "unchanged", "unchanged", "unchanged"]
    assert len(runtime.store.list_documents()) == 1
    assert runtime.store.count_chunks() == len(drafts)


@pytest.mark.parametrize("payload", [b"\x00\x01\x02\x03" * 100, b"\xff\xfe\x00\x00garbage"])
def test_binary_content_named_txt_is_refused(runtime: Runtime, tmp_path: Path, payload: bytes) -> None:
    (tmp_path / "blob.txt").write_bytes(payload)
    report = ingestor_for(runtime).ingest_paths([tmp_path])
    assert "binary" in failures(report)["blob.txt"]
    assert runtime.store.list_documents(status="indexed") == []
    [failed] = runtime.store.list_documents()
    assert failed.status == "failed" and "binary" in failed.status_reason and failed.chunk_count == 0


def test_links_leading_outside_the_folder_are_skipped_unless_allowed(runtime: Runtime, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("The vault code is 4711.")
    (outside / "nested").mkdir()
    (outside / "nested" / "more.md").write_text("# More\n\nAnother secret about Tallinn.")
    folder = tmp_path / "corpus"
    (folder / "sub").mkdir(parents=True)
    (folder / "own.md").write_text("# Own\n\nLumen Robotics builds robots.")
    (folder / "sub" / "alias.md").symlink_to(folder / "own.md")  # a link that stays inside: fine
    (folder / "passwd.txt").symlink_to(outside / "secret.txt")
    (folder / "linked_dir").symlink_to(outside / "nested", target_is_directory=True)

    report = ingestor_for(runtime).ingest_paths([folder])
    sources = {d.source for d in runtime.store.list_documents()}
    assert not any("secret" in s or "more.md" in s or "passwd" in s for s in sources), sources
    assert {Path(s).name for s in sources} == {"own.md"}  # the inside link is the same file
    skipped = dict(report.skipped)
    assert set(skipped) == {str(folder / "passwd.txt"), str(folder / "linked_dir")}
    assert all("outside" in why and "--follow-outside-links" in why for why in skipped.values())
    assert not report.failed

    allowed = ingestor_for(runtime).ingest_paths([folder], follow_outside_links=True)
    assert not allowed.skipped and len(allowed.added) >= 1
    names = {Path(d.source).name for d in runtime.store.list_documents()}
    assert names == {"own.md", "secret.txt", "more.md"}


def test_nul_bytes_after_the_first_8_kib_are_refused_as_binary(runtime: Runtime, tmp_path: Path) -> None:
    hidden = tmp_path / "hidden.txt"
    hidden.write_bytes(b"Plain words about Tallinn. " * 400 + b"\x00\x01\x02ELF" * 100)  # NULs start past 10 KB
    report = ingestor_for(runtime).ingest_paths([hidden])
    assert not report.added and len(report.failed) == 1
    assert "binary" in report.failed[0][1]
    assert runtime.store.list_documents(status="indexed") == []
