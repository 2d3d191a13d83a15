"""Upload bombs and one bad file among good ones: each gets a 4xx (or its own `failed` row) naming the
limit it hit, the server stays up, and nothing already stored is touched. The bombs are built here."""

from __future__ import annotations

import io
import os
import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from fastapi.testclient import TestClient
from kgrag.api.cli import app
from kgrag.core.models import Embedder
from kgrag.core.settings import IngestSettings, Settings
from typer.testing import CliRunner

from tests.test_api_support import api_settings, client_for
from tests.test_formats import docx_bytes

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
STORED = "The Vormsi ferry sails between Rohukula and Sviby in every season."


def laughs_markdown(depth: int = 9) -> bytes:
    """Billion laughs in front matter: nine anchors, each listing the one before nine times (9^9 values)."""
    lines = ["a: &a [" + ",".join(['"lol"'] * 9) + "]"]
    for i in range(1, depth):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    return ("---\n" + "\n".join(lines) + "\n---\n# Laughs\n\nA short body.\n").encode()


def docx_with(document_xml: Callable[[zipfile.ZipFile], None]) -> bytes:
    """A real .docx (python-docx's own parts) whose word/document.xml is written by ``document_xml``."""
    source = zipfile.ZipFile(io.BytesIO(docx_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            if item.filename == "word/document.xml":
                document_xml(target)
            else:
                target.writestr(item, source.read(item.filename))
    return out.getvalue()


def repeated_element_docx(count: int) -> bytes:
    """``count`` empty paragraphs: tiny compressed, ~6 bytes each unpacked, far more as a parsed tree."""
    def write(target: zipfile.ZipFile) -> None:
        with target.open("word/document.xml", "w") as part:
            part.write(f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {W}><w:body>'.encode())
            block = b"<w:p/>" * 100_000
            for _ in range(count // 100_000):
                part.write(block)
            part.write(b"<w:p><w:r><w:t>Tail.</w:t></w:r></w:p></w:body></w:document>")
    return docx_with(write)


def entity_docx() -> bytes:
    """A 1 KB .docx whose XML declares nested entities (the lxml XMLSyntaxError that was a 500)."""
    entities = '<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(ord("a") + i)} "{("&" + chr(ord("a") + i - 1) + ";") * 10}">' for i in range(1, 9))
    xml = (f'<?xml version="1.0"?><!DOCTYPE w:document [{entities}]><w:document {W}><w:body>'
           '<w:p><w:r><w:t>&i;</w:t></w:r></w:p></w:body></w:document>')
    return docx_with(lambda target: target.writestr("word/document.xml", xml))


@pytest.fixture
def client(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[TestClient]:
    with client_for(api_settings(make_settings), embedder) as c:
        yield stored(c)


def stored(c: TestClient) -> TestClient:
    r = c.post("/v1/documents", json={"text": STORED, "title": "Vormsi", "source": "vormsi"})
    assert r.status_code == 201, r.text
    return c


def refused(client: TestClient, name: str, data: bytes, source: str = "vormsi") -> dict[str, str]:
    """Uploaded under the stored document's source: a refusal must leave that document as it was."""
    before = client.get("/v1/documents").json()["documents"]
    r = client.post("/v1/documents", files={"file": (name, data)}, data={"source": source})
    assert 400 <= r.status_code < 500, r.text
    assert client.get("/v1/documents").json()["documents"] == before
    hits = client.post("/v1/query", json={"question": "Where does the Vormsi ferry sail?", "answer": False})
    assert hits.status_code == 200 and hits.json()["hits"][0]["source"] == "vormsi"
    return dict(r.json())


def test_yaml_alias_bomb_and_huge_front_matter_are_refused(client: TestClient) -> None:
    rss = psutil.Process(os.getpid()).memory_info().rss
    body = refused(client, "laughs.md", laughs_markdown())
    assert "expands to over 10000 values" in body["detail"] and "alias" in body["detail"]
    assert "KGRAG_INGEST__MAX_FRONT_MATTER_NODES" in body["fix"]
    assert psutil.Process(os.getpid()).memory_info().rss - rss < 200 * 2**20
    big = ("---\nnotes: " + "x" * 70_000 + "\n---\nBody text.\n").encode()
    body = refused(client, "big.md", big)
    assert "over the limit of 65536" in body["detail"] and "KGRAG_INGEST__MAX_FRONT_MATTER_BYTES" in body["fix"]
    # Anchors used sparingly are still fine.
    ok = b"---\ntags: &t [ferry, island]\nalso: *t\n---\n# Vormsi ferries\n\nThe ferry sails daily.\n"
    r = client.post("/v1/documents", files={"file": ("ok.md", ok)})
    assert r.status_code == 201, r.text
    assert r.json()["document"]["metadata"]["also"] == ["ferry", "island"]


def string_bomb_markdown(uses: int = 1_000) -> bytes:
    """One 60,000-character string aliased ``uses`` times: about 60 KB of front matter and a thousand values,
    within both older limits, that expand to 60 MB of metadata (66 MB stored per upload, issue 45)."""
    refs = ",".join(["*s"] * uses)
    return (f'---\nbig: &s "{"x" * 60_000}"\nrefs: [{refs}]\n---\n# Strings\n\nA short body.\n').encode()


def test_a_string_alias_bomb_and_oversized_metadata_are_refused(client: TestClient) -> None:
    bomb = string_bomb_markdown()
    assert len(bomb) < IngestSettings().max_front_matter_bytes
    rss = psutil.Process(os.getpid()).memory_info().rss
    body = refused(client, "strings.md", bomb)
    assert "expands to over 65536 bytes" in body["detail"] and "alias" in body["detail"], body
    assert "KGRAG_INGEST__MAX_METADATA_BYTES" in body["fix"], body
    assert psutil.Process(os.getpid()).memory_info().rss - rss < 200 * 2**20
    # The same bound without aliases: metadata is listed with every document, so it stays small.
    wide = ("---\n" + "".join(f"k{i}: {'y' * 60}\n" for i in range(950)) + "---\nBody text.\n").encode()
    assert len(wide) < IngestSettings().max_front_matter_bytes
    body = refused(client, "wide.md", wide)
    assert "over the limit of 65536" in body["detail"] and "KGRAG_INGEST__MAX_METADATA_BYTES" in body["fix"], body
    r = client.post("/v1/documents", json={"text": "The ferry sails.", "metadata": {"notes": "z" * 70_000}})
    assert r.status_code == 422 and "KGRAG_INGEST__MAX_METADATA_BYTES" in r.json()["fix"], r.text
    assert all(d["status"] == "indexed" for d in client.get("/v1/documents").json()["documents"])


def test_docx_bombs_are_refused_before_they_are_parsed(client: TestClient) -> None:
    bomb = repeated_element_docx(20_000_000)  # 120 MB of XML in about 120 KB
    assert len(bomb) < 1_000_000
    body = refused(client, "bomb.docx", bomb)
    assert "word/document.xml expands" in body["detail"] and "KGRAG_INGEST__MAX_COMPRESSION_RATIO" in body["fix"]
    body = refused(client, "entities.docx", entity_docx())
    assert "DOCTYPE" in body["detail"] and body["status"] == 422


def test_a_parse_over_the_memory_limit_fails_alone(make_settings: Callable[..., Settings],
                                                   embedder: Embedder) -> None:
    """A .docx within the zip limits whose parsed tree is still too big: the parser process hits its
    address-space limit and is replaced; the server answers the next upload."""
    limits = IngestSettings(parser_memory_bytes=64 * 2**20, max_compression_ratio=10_000)
    with client_for(api_settings(make_settings, ingest=limits), embedder) as c:
        body = refused(stored(c), "tree.docx", repeated_element_docx(3_000_000))
        assert "more memory to parse than the parser's limit of 64 MiB" in body["detail"]
        assert "KGRAG_INGEST__PARSER_MEMORY_BYTES" in body["fix"]
        ok = c.post("/v1/documents", files={"file": ("ferry.docx", docx_bytes())})
        assert ok.status_code == 201, ok.text


def test_bad_values_are_4xx_with_the_reason_not_500(client: TestClient) -> None:
    body = refused(client, "nan.md", b"---\ntitle: Numbers\nx: .nan\n---\n# Numbers\n\nSome text about numbers.\n")
    assert "'x' is not a finite number" in body["detail"] and "quote it" in body["fix"]
    body = refused(client, "nul.md", b'---\nx: "a\\0b"\n---\nSome text about numbers.\n')
    assert "NUL" in body["detail"]


def test_folder_ingest_stores_the_good_files_and_fails_the_bad_ones(tmp_path: Path, fresh_database_url: str
                                                                   ) -> None:
    """`kgrag ingest FOLDER` printed a traceback, exited 1 and stored none of the folder's valid files."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a_nan.md").write_bytes(b"---\nx: .nan\n---\nThe lighthouse at Tahkuna is 43 metres tall.\n")
    (folder / "b_entities.docx").write_bytes(entity_docx())
    (folder / "c_laughs.md").write_bytes(laughs_markdown())
    (folder / "d_ferry.docx").write_bytes(docx_bytes())
    (folder / "e_island.txt").write_text("Hiiumaa is the second largest island of Estonia.\n")
    (folder / "f_port.md").write_text("---\nport: Heltermaa\n---\n# Heltermaa\n\nHeltermaa is a ferry port.\n")
    env = {"KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url, "COLUMNS": "200"}
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(folder)], env=env)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert re.search(r"│ added +│ 3 +│", result.output), result.output
    assert re.search(r"│ failed +│ 3 +│", result.output), result.output
    listing = runner.invoke(app, ["documents", "list"], env=env).output
    assert "a_nan.md" in listing and "b_entities.docx" in listing and "c_laughs.md" in listing, listing
    from kgrag.core.runtime import Runtime

    with Runtime(Settings(_env_file=None, home=tmp_path / "home",
                          database={"url": fresh_database_url})) as rt:
        failed = {Path(d.source).name: d.status_reason for d in rt.store.list_documents(status="failed")}
        indexed = {Path(d.source).name for d in rt.store.list_documents(status="indexed")}
    assert indexed == {"d_ferry.docx", "e_island.txt", "f_port.md"}
    assert "not a finite number" in failed["a_nan.md"]
    assert "DOCTYPE" in failed["b_entities.docx"]
    assert "KGRAG_INGEST__MAX_FRONT_MATTER_NODES" in failed["c_laughs.md"]


def test_a_parse_that_overruns_or_dies_fails_alone() -> None:
    """The sandbox's time limit and a worker killed mid-parse: each is that input's error, and the next
    call gets a fresh worker."""
    import time

    from kgrag.core.errors import IngestError
    from kgrag.core.sandbox import Sandbox
    from kgrag.ingest.loaders import PARSER_MODULES, load_bytes

    sandbox = Sandbox(memory_bytes=256 * 2**20, timeout_s=1.0, processes=1, preload=PARSER_MODULES)
    try:
        t0 = time.monotonic()
        with pytest.raises(IngestError) as err:
            sandbox.run(time.sleep, 30, label="slow.pdf")
        assert time.monotonic() - t0 < 10
        assert "slow.pdf took longer than the parser's limit of 1 s" in err.value.message
        assert "KGRAG_INGEST__PARSER_TIMEOUT_S" in (err.value.fix or "")
        with pytest.raises(IngestError) as err:
            sandbox.run(os._exit, 3, label="crash.pdf")
        assert "crash.pdf made the parser process die (exit code 3)" in err.value.message
        doc = sandbox.run(load_bytes, b"Hiiumaa has ferries.", source="ok.txt", suffix=".txt", default_title="ok")
        assert doc.pages[0].text == "Hiiumaa has ferries."
    finally:
        sandbox.close()


def test_folder_ingest_with_a_lone_surrogate_stores_the_rest(tmp_path: Path, fresh_database_url: str) -> None:
    """A front-matter value holding a lone surrogate ("\\ud800") made `kgrag ingest FOLDER` store nothing and
    exit 1 with a traceback: the batch's one statement could not encode it, so every file of the batch failed."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a_surrogate.md").write_text('---\nteam: "a\\ud800b"\n---\nThe harbour at Kardla is small.\n')
    (folder / "b_island.txt").write_text("Hiiumaa is the second largest island of Estonia.\n")
    (folder / "c_port.md").write_text("---\nport: Heltermaa\n---\n# Heltermaa\n\nHeltermaa is a ferry port.\n")
    env = {"KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url, "COLUMNS": "200"}
    result = CliRunner().invoke(app, ["ingest", str(folder)], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    assert re.search(r"│ added +│ 2 +│", result.output), result.output
    assert re.search(r"│ failed +│ 1 +│", result.output), result.output
    assert "a_surrogate.md" in result.output and "surrogate" in result.output, result.output
    from kgrag.core.runtime import Runtime

    with Runtime(Settings(_env_file=None, home=tmp_path / "home", database={"url": fresh_database_url})) as rt:
        failed = {Path(d.source).name: d.status_reason for d in rt.store.list_documents(status="failed")}
        indexed = {Path(d.source).name for d in rt.store.list_documents(status="indexed")}
    assert indexed == {"b_island.txt", "c_port.md"}
    assert "'team'" in failed["a_surrogate.md"] and "surrogate" in failed["a_surrogate.md"], failed
