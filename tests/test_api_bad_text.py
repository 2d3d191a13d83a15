"""Text that is not text: lone UTF-16 surrogates and invisible formatting characters, over HTTP and from
files. Each is a 422 naming the field, or, where a file's own title or metadata carries it, dropped before
it is stored; never a 500 or a 200 with failed stages (issue 45)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from kgrag.core.models import Embedder
from kgrag.core.settings import Settings

from tests.test_api_support import api_settings, client_for

QUESTION = "Who designed the flight controller of the Skua drone?"
LONE = "\\ud800"
"""A lone high surrogate, as JSON spells it: json.loads turns it into a str no UTF-8 encoder accepts."""


@pytest.fixture
def client(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[TestClient]:
    with client_for(api_settings(make_settings), embedder) as c:
        r = c.post("/v1/documents", json={"text": "The Skua drone's flight controller was designed by Tomas Berg.",
                                          "title": "Skua", "source": "skua"})
        assert r.status_code == 201, r.text
        yield c


def post_raw(client: TestClient, path: str, body: str) -> Any:
    """The JSON sent as written (with its ``\\ud800`` escape): httpx's json= would fail to encode the str."""
    return client.post(path, content=body.encode(), headers={"content-type": "application/json"})


def assert_422_naming(r: Any, field: str) -> None:
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json", r.text
    assert field in r.json()["detail"], r.json()
    assert "surrogate" in r.json()["detail"] and r.json()["fix"], r.json()


@pytest.mark.parametrize(("body", "field"), [
    (f'{{"question": "{LONE}"}}', "question"),
    (f'{{"question": "Where does he work?", "conversation": [{{"role": "user", "text": "Who is {LONE}?"}}]}}',
     "conversation.0.text"),
    (f'{{"question": "{QUESTION}", "answer": false, "filters": {{"sources": ["sk{LONE}ua"]}}}}', "filters.sources"),
    (f'{{"question": "{QUESTION}", "answer": false, "filters": {{"metadata": {{"team": "{LONE}"}}}}}}',
     "filters.metadata"),
    (f'{{"question": "{QUESTION}", "answer": false, "filters": {{"metadata": {{"{LONE}": "ops"}}}}}}',
     "filters.metadata"),
], ids=["question", "conversation", "sources", "metadata-value", "metadata-key"])
def test_a_lone_surrogate_in_a_query_is_a_422_naming_the_field(client: TestClient, body: str, field: str) -> None:
    """The conversation turn was a 500; the filters a 200 whose every stage had failed."""
    for path in ("/v1/query", "/v1/query/stream"):
        assert_422_naming(post_raw(client, path, body), field)


@pytest.mark.parametrize("stream", ["false", "true"])
@pytest.mark.parametrize(("body", "field"), [
    (f'{{"messages": [{{"role": "user", "content": "Who is {LONE}?"}}]}}', "messages.0.content"),
    (f'{{"messages": [{{"role": "user", "content": [{{"type": "text", "text": "{LONE}"}}]}}]}}',
     "messages.0.content"),
    (f'{{"model": "{LONE}", "messages": [{{"role": "user", "content": "{QUESTION}"}}]}}', "model"),
], ids=["content", "content-part", "model"])
def test_a_lone_surrogate_in_a_chat_request_is_a_422_naming_the_field(client: TestClient, body: str, field: str,
                                                                     stream: str) -> None:
    body = body[:-1] + f', "stream": {stream}}}'
    assert_422_naming(post_raw(client, "/v1/chat/completions", body), field)


def test_a_lone_surrogate_in_an_uploaded_document_is_a_422_naming_the_field(client: TestClient) -> None:
    before = client.get("/v1/documents").json()["documents"]
    for key in ("title", "team"):
        md = f'---\n{key}: "a{LONE}b"\n---\n# Ferries\n\nThe ferry sails daily.\n'.encode()
        r = client.post("/v1/documents", files={"file": ("ferry.md", md)})
        assert r.status_code == 422, r.text
        assert repr(key) in r.json()["detail"] and "surrogate" in r.json()["detail"], r.json()
    for field in ("text", "title", "source"):
        doc = {"text": "The ferry sails daily.", "title": "Ferry", "source": "ferry"}
        doc[field] = f"a{LONE}b"
        body = "{" + ", ".join(f'"{k}": "{v}"' for k, v in doc.items()) + "}"
        assert_422_naming(post_raw(client, "/v1/documents", body), field)
    r = post_raw(client, "/v1/documents", f'{{"text": "The ferry sails.", "metadata": {{"team": ["{LONE}"]}}}}')
    assert_422_naming(r, "metadata")
    r = client.post("/v1/documents", files={"file": ("ferry.txt", b"The ferry sails daily.")},
                    data={"metadata": f'{{"team": "{LONE}"}}'})
    assert r.status_code == 422 and "metadata" in r.json()["detail"], r.text
    assert client.get("/v1/documents").json()["documents"] == before  # nothing stored, nothing marked failed


HIDDEN = "\u202e"


def test_invisible_characters_in_a_file_never_reach_its_title_or_metadata(client: TestClient) -> None:
    """A title from a Markdown heading, a front-matter title or an HTML <title>, and a front-matter value,
    kept U+202E: "invoice\u202efdp.exe" reads as "invoiceexe.pdf" in every listing."""
    uploads = {
        "heading.md": f"# Invoice{HIDDEN}fdp.exe\n\nThe heading names an invoice.\n",
        "front.md": f"---\ntitle: Receipt{HIDDEN}fdp.exe\nteam: op{HIDDEN}s\ntags: [a{HIDDEN}b]\n---\n"
                    "The receipt is for ferry tickets.\n",
        "page.html": f"<html><head><title>Statement{HIDDEN}fdp.exe</title></head><body><p>The statement lists "
                     "ferry tickets bought in March and April.</p></body></html>",
        "plain.txt": f"Ledger{HIDDEN}\u2066 of ferries\n\nThe ledger lists every ferry ticket sold.\n",
    }
    for name, text in uploads.items():
        r = client.post("/v1/documents", files={"file": (name, text.encode())})
        assert r.status_code == 201, (name, r.text)
    docs = {d["source"].removeprefix("upload:"): d for d in client.get("/v1/documents").json()["documents"]}
    assert docs["heading.md"]["title"] == "Invoicefdp.exe"
    assert docs["front.md"]["title"] == "Receiptfdp.exe"
    assert docs["front.md"]["metadata"]["team"] == "ops" and docs["front.md"]["metadata"]["tags"] == ["ab"]
    assert docs["page.html"]["title"] == "Statementfdp.exe"
    assert docs["plain.txt"]["title"] == "Ledger of ferries"


@pytest.mark.parametrize("hidden", ["\u061c", "\U000e0041", "\U000e007f", "\u3164", "\u202e"],
                         ids=["U+061C", "U+E0041", "U+E007F", "U+3164", "U+202E"])
def test_invisible_characters_in_a_json_title_or_metadata_are_refused(client: TestClient, hidden: str) -> None:
    """U+061C (Arabic letter mark), tag characters and U+3164 (Hangul filler) were stored in JSON titles."""
    r = client.post("/v1/documents", json={"text": "The ferry sails daily.", "title": f"Fer{hidden}ry"})
    assert r.status_code == 422, r.text
    assert "title" in r.json()["detail"] and f"U+{ord(hidden):04X}" in r.json()["detail"], r.json()
    r = client.post("/v1/documents", json={"text": "The ferry sails daily.", "metadata": {"team": f"o{hidden}ps"}})
    assert r.status_code == 422, r.text
    assert "metadata" in r.json()["detail"] and f"U+{ord(hidden):04X}" in r.json()["detail"], r.json()
