"""Document upload, listing and deletion over HTTP, and what a query sees before and after."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from kgrag.core.models import Embedder
from kgrag.core.settings import ChunkingSettings, Settings

from tests.test_api_support import api_settings, client_for

MARKDOWN = (b"# Zephyr kiln\n\nThe Zephyr kiln at Orrefors fires blue glass at 1,180 degrees Celsius. "
            b"It was built in 1932 by the glassmaker Edvin Lund.\n")
QUESTION = "At what temperature does the Zephyr kiln fire glass?"


@pytest.fixture
def client(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[TestClient]:
    with client_for(api_settings(make_settings), embedder) as c:
        yield c


def _sources(client: TestClient, question: str) -> list[str]:
    body = client.post("/v1/query", json={"question": question, "answer": False}).json()
    return [h["source"] for h in body["hits"]]


def test_upload_query_delete_round_trip(client: TestClient) -> None:
    r = client.post("/v1/documents", files={"file": ("zephyr.md", MARKDOWN, "text/markdown")},
                    data={"metadata": '{"team": "glass"}'})
    assert r.status_code == 201, r.text
    uploaded = r.json()
    doc = uploaded["document"]
    assert uploaded["outcome"] == "added" and uploaded["chunks_written"] == doc["chunk_count"] >= 1
    assert doc["title"] == "Zephyr kiln" and doc["source"] == "upload:zephyr.md"
    assert doc["metadata"]["team"] == "glass"

    text = client.post("/v1/documents", json={"text": "Tallinn is the capital of Estonia.", "title": "Tallinn",
                                              "source": "notes/tallinn"})
    assert text.status_code == 201 and text.json()["document"]["mime_type"] == "text/plain"

    listed = client.get("/v1/documents").json()["documents"]
    assert {d["source"] for d in listed} == {"upload:zephyr.md", "notes/tallinn"}

    assert _sources(client, QUESTION)[0] == "upload:zephyr.md"
    body = client.post("/v1/query", json={"question": QUESTION, "filters": {"metadata": {"team": "glass"}}}).json()
    assert body["answer"]["mode"] == "extractive" and "1,180 degrees" in body["answer"]["text"]
    assert body["citations"][0]["document_id"] == doc["id"]

    again = client.post("/v1/documents", files={"file": ("zephyr.md", MARKDOWN, "text/markdown")})
    assert again.json()["outcome"] == "unchanged"

    deleted = client.delete(f"/v1/documents/{doc['id']}")
    assert deleted.status_code == 200 and deleted.json()["id"] == doc["id"]
    assert "upload:zephyr.md" not in _sources(client, QUESTION)
    assert client.get(f"/v1/documents/{doc['id']}").status_code == 404
    missing = client.delete(f"/v1/documents/{doc['id']}")
    assert missing.status_code == 404 and missing.json()["fix"]


def test_bad_uploads_are_problems_with_a_fix(client: TestClient) -> None:
    r = client.post("/v1/documents", files={"file": ("tool.exe", b"MZ\x90\x00", "application/octet-stream")})
    assert r.status_code == 422 and "unsupported type" in r.json()["detail"] and r.json()["fix"]
    r = client.post("/v1/documents", files={"file": ("empty.txt", b"   ", "text/plain")})
    assert r.status_code == 422 and "empty" in r.json()["detail"]
    r = client.post("/v1/documents", json={"title": "no text"})
    assert r.status_code == 422 and r.json()["type"].endswith("validation")
    r = client.post("/v1/documents", content=b"plain", headers={"content-type": "text/plain"})
    assert r.status_code == 422 and "multipart/form-data" in r.json()["fix"]
    r = client.post("/v1/documents", files={"file": ("a.md", b"# A\n\nSome text here for a doc.", "text/markdown")},
                    data={"metadata": "[1, 2]"})
    assert r.status_code == 422 and "JSON object" in r.json()["detail"]


def test_a_document_with_its_text_and_chunks(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    """What MCP's get_document returns, over REST: the text rebuilt from the chunks, and a page of chunks."""
    paragraphs = [f"The {t} kiln at Orrefors was rebuilt in {1900 + i}. Its fire reached {1000 + i} degrees, "
                  f"and the {t} glass it made was sold in Stockholm and Bergen." for i, t in
                  enumerate(("blue", "green", "amber", "violet", "clear", "smoke"))]
    text = "\n\n".join(paragraphs)
    settings = api_settings(make_settings, chunking=ChunkingSettings(size=48, overlap=16))
    with client_for(settings, embedder) as client:
        doc = client.post("/v1/documents", json={"text": text, "title": "Kilns", "source": "notes/kilns"}).json()
        doc_id, count = doc["document"]["id"], doc["document"]["chunk_count"]
        assert count >= 4

        plain = client.get(f"/v1/documents/{doc_id}").json()
        assert plain["text"] is None and plain["chunks"] is None and plain["chunk_count"] == count

        full = client.get(f"/v1/documents/{doc_id}", params={"include": "text,chunks"}).json()
        assert " ".join(full["text"].split()) == " ".join(text.split())
        chunks = full["chunks"]
        assert [c["position"] for c in chunks] == list(range(count))
        assert all(c["text"] in full["text"] for c in chunks)
        hit = client.post("/v1/query", json={"question": "Where was the amber glass sold?", "answer": False}).json()
        assert hit["hits"][0]["chunk_id"] in {c["chunk_id"] for c in chunks}

        page = client.get(f"/v1/documents/{doc_id}", params={"include": "chunks", "chunk_offset": 2,
                                                             "chunk_limit": 2}).json()
        assert page["text"] is None and page["chunks"] == chunks[2:4]
        assert client.get(f"/v1/documents/{doc_id}", params={"include": "text"}).json()["text"] == full["text"]

        bad = client.get(f"/v1/documents/{doc_id}", params={"include": "body"})
        assert bad.status_code == 422 and bad.json()["fix"]
        missing = client.get("/v1/documents/999999", params={"include": "text,chunks"})
        assert missing.status_code == 404 and "no document with id 999999" in missing.json()["detail"]
