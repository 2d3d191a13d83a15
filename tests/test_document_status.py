"""Document status (pending / indexed / failed with why) and content-hash duplicates, in the core, CLI and API."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from kgrag.api.cli import app
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.schema import MIGRATIONS
from kgrag.core.settings import DatabaseSettings, Settings
from kgrag.ingest.pipeline import Ingestor
from typer.testing import CliRunner

from tests.conftest import EXAMPLES_DIR
from tests.test_api_support import api_settings, client_for

GOOD = "The Vormsi ferry leaves Rohukula at dawn and returns at dusk, carrying cars and bicycles.\n"


@pytest.fixture
def cli_env(tmp_path: Path, fresh_database_url: str) -> dict[str, str]:
    return {"KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url, "COLUMNS": "250"}


def _listing(env: dict[str, str]) -> str:
    out = CliRunner().invoke(app, ["documents", "list"], env=env)
    assert out.exit_code == 0, out.output
    return out.output


def test_a_failed_file_is_remembered_with_its_reason_until_it_is_fixed(cli_env: dict[str, str],
                                                                       tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ferry.txt").write_text(GOOD)
    (folder / "blob.txt").write_bytes(b"\x00\x01\x02\x03" * 50)
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(folder)], env=cli_env).exit_code == 0

    listing = _listing(cli_env)
    assert re.search(r"│ \d+ +│ indexed +│ ferry ", listing), listing
    assert re.search(r"│ \d+ +│ failed +│ blob\.txt ", listing), listing
    assert re.search(r"failed \d+: .*blob\.txt: .*looks binary", " ".join(listing.split())), listing

    (folder / "blob.txt").write_text("Kelp forests grow along the Norwegian coast in cold, clear water.\n")
    again = runner.invoke(app, ["ingest", str(folder)], env=cli_env)
    assert re.search(r"│ added +│ 1 +│", again.output), again.output  # a failed row held nothing to replace
    listing = _listing(cli_env)
    assert "│ failed " not in listing and re.search(r"│ \d+ +│ indexed +│ blob ", listing), listing


def test_a_failed_new_version_keeps_the_old_one_and_says_so(runtime: Runtime, tmp_path: Path) -> None:
    doc = tmp_path / "ferry.txt"
    doc.write_text(GOOD)
    ingestor = Ingestor.from_runtime(runtime)
    ingestor.ingest_paths([doc])
    doc.write_bytes(b"\x00binary now\x00" * 20)
    report = ingestor.ingest_paths([doc])
    assert report.failed
    [record] = runtime.store.list_documents()
    assert record.status == "indexed" and record.chunk_count >= 1  # the previous version still serves
    assert record.status_reason.startswith("a newer version could not be ingested (")
    assert record.status_reason.endswith("the previous version is still served")


def test_api_lists_status_and_filters_by_it(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    with client_for(api_settings(make_settings), embedder) as client:
        ok = client.post("/v1/documents", json={"text": GOOD, "title": "Ferry", "source": "mem:ferry"})
        assert ok.status_code == 201 and ok.json()["document"]["status"] == "indexed"
        bad = client.post("/v1/documents", json={"text": "x", "title": "Tiny", "source": "mem:tiny"})
        assert bad.status_code in (201, 422)
        listed = client.get("/v1/documents").json()["documents"]
        assert all(d["status"] in {"pending", "indexed", "failed"} and "status_reason" in d for d in listed)
        indexed = client.get("/v1/documents", params={"status": "indexed"}).json()["documents"]
        assert "mem:ferry" in {d["source"] for d in indexed}
        assert client.get("/v1/documents", params={"status": "failed"}).json()["documents"] == [
            d for d in listed if d["status"] == "failed"]
        assert client.get("/v1/documents", params={"status": "lost"}).status_code == 422


def test_an_older_database_is_migrated_and_its_documents_read_as_indexed(
        pg_server: str, fresh_database_url: str, embedder: Embedder, tmp_path: Path) -> None:
    """Documents stored before statuses existed are the indexed ones: the migration says so."""
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE schema_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL "
                     "DEFAULT now())")
        for version, migration in enumerate(MIGRATIONS[:3], start=1):
            conn.execute(migration(embedder.dim))
            conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
        conn.execute("INSERT INTO kgrag_meta (key, value) VALUES ('embedding_dim', %s)", (str(embedder.dim),))
        conn.execute("INSERT INTO documents (source, content_hash, title, mime_type) VALUES "
                     "('old.txt', 'abc', 'Old', 'text/plain')")
    settings = Settings(_env_file=None, home=tmp_path, database=DatabaseSettings(url=fresh_database_url))
    with Runtime(settings, embedder=embedder) as rt:
        [old] = rt.store.list_documents()
        assert (old.source, old.status, old.status_reason) == ("old.txt", "indexed", "")
        assert rt.store.indexed_with_hashes(["abc"]) == {"abc": (old.id, "old.txt")}


# -- duplicates ------------------------------------------------------------------------------------
def test_the_same_bytes_under_another_name_are_reported_not_stored_twice(cli_env: dict[str, str],
                                                                         tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    shutil.copytree(EXAMPLES_DIR, folder)
    runner = CliRunner()
    first = runner.invoke(app, ["ingest", str(folder)], env=cli_env)
    n = len(list(EXAMPLES_DIR.iterdir()))
    assert first.exit_code == 0 and re.search(rf"│ added +│ {n} +│", first.output), first.output

    original = sorted(folder.glob("*.md"))[0]
    (folder / "copy-of-it.md").write_bytes(original.read_bytes())  # another name, same bytes
    (folder / "sub").mkdir()
    (folder / "sub" / "twin-a.txt").write_text(GOOD)  # two new files with the same bytes in one batch
    (folder / "sub" / "twin-b.txt").write_text(GOOD)
    second = runner.invoke(app, ["ingest", str(folder)], env=cli_env)
    out = " ".join(second.output.split())
    assert second.exit_code == 0, second.output
    assert re.search(r"│ added +│ 1 +│", second.output) and re.search(r"│ duplicate \(skipped\) +│ 2 +│",
                                                                        second.output), second.output
    assert f"duplicate: {(folder / 'copy-of-it.md').resolve()} has the same bytes as {original.resolve()}" in out
    assert "twin-b.txt has the same bytes as" in out and "--allow-duplicates" in out
    sources = {Path(line).name for line in re.findall(r"(/\S+\.(?:md|txt|html|pdf))", _listing(cli_env))}
    assert "copy-of-it.md" not in sources and "twin-b.txt" not in sources and "twin-a.txt" in sources

    forced = runner.invoke(app, ["ingest", str(folder), "--allow-duplicates"], env=cli_env)
    assert re.search(r"│ added +│ 2 +│", forced.output), forced.output


@pytest.fixture
def client(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[TestClient]:
    with client_for(api_settings(make_settings), embedder) as c:
        yield c


def test_api_refuses_a_duplicate_upload_with_409_unless_asked(client: TestClient) -> None:
    pdf_like = ("# Harbour notes\n\n" + GOOD).encode()
    first = client.post("/v1/documents", files={"file": ("notes.md", pdf_like, "text/markdown")})
    assert first.status_code == 201, first.text
    again = client.post("/v1/documents", files={"file": ("renamed.md", pdf_like, "text/markdown")})
    assert again.status_code == 409, again.text
    problem = again.json()
    assert "upload:notes.md" in problem["detail"] and "allow_duplicates=true" in problem["fix"]
    assert [d["source"] for d in client.get("/v1/documents").json()["documents"]] == ["upload:notes.md"]

    forced = client.post("/v1/documents", params={"allow_duplicates": "true"},
                         files={"file": ("renamed.md", pdf_like, "text/markdown")})
    assert forced.status_code == 201 and forced.json()["outcome"] == "added"
    same_source = client.post("/v1/documents", files={"file": ("notes.md", pdf_like, "text/markdown")})
    assert same_source.status_code == 201 and same_source.json()["outcome"] == "unchanged"


def test_api_query_on_an_empty_store_says_to_ingest(client: TestClient) -> None:
    body = client.post("/v1/query", json={"question": "Who runs the harbour?", "answer": False}).json()
    assert body["hits"] == []
    assert body["warnings"][0].startswith("the store is empty") and "POST /v1/documents" in body["warnings"][0]


def test_a_first_ingest_numbers_documents_from_1(runtime: Runtime, tmp_path: Path) -> None:
    """Issue 46: the examples came out as documents 13-24 (their pending rows had taken 1-12), so the docs'
    `curl …/v1/documents/3` was a 404. A document keeps the id its pending row got; a new version of an
    indexed one still gets a new id, and a file that failed and is fixed keeps the failed row's."""
    ingestor = Ingestor.from_runtime(runtime)
    report = ingestor.ingest_paths([EXAMPLES_DIR])
    ids = sorted(report.document_ids.values())
    assert ids == list(range(1, len(ids) + 1)) and len(ids) == 12
    assert sorted(d.id for d in runtime.store.list_documents()) == ids

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "ferry.txt").write_bytes(b"\x00\x01\x02\x03" * 50)  # fails: binary
    assert ingestor.ingest_paths([folder]).failed
    failed_id = next(d.id for d in runtime.store.list_documents() if d.source.endswith("ferry.txt"))
    (folder / "ferry.txt").write_text(GOOD)
    fixed = ingestor.ingest_paths([folder])
    assert list(fixed.document_ids.values()) == [failed_id]
    (folder / "ferry.txt").write_text(GOOD + "It also carries bicycles.\n")
    replaced = ingestor.ingest_paths([folder])
    assert replaced.replaced and next(iter(replaced.document_ids.values())) > failed_id
