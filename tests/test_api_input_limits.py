"""Hostile input over HTTP: too many filters, terminal control characters in stored text fields."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from kgrag.core.models import Embedder
from kgrag.core.settings import ApiSettings, Settings

from tests.test_api_support import api_settings, client_for

QUESTION = "Who designed the flight controller of the Skua drone?"
CONTROLS = "\x1b[2J\x1b]0;pwned\x07\x08\x7f\x9b31m\u0085"
"""Clear screen, set the window title, backspace, DEL, a C1 CSI, NEL: what `documents list` printed raw."""


@pytest.fixture
def client(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[TestClient]:
    with client_for(api_settings(make_settings, api=ApiSettings(max_filters=50)), embedder) as c:
        r = c.post("/v1/documents", json={"text": "The Skua drone's flight controller was designed by Tomas Berg.",
                                          "title": "Skua", "source": "skua"})
        assert r.status_code == 201, r.text
        yield c


def test_filters_over_the_limit_are_refused_with_the_setting(client: TestClient) -> None:
    many = {f"k{i}": "v" for i in range(51)}
    r = client.post("/v1/query", json={"question": QUESTION, "filters": {"metadata": many}, "answer": False})
    assert r.status_code == 422, r.text
    assert "51 filters" in r.json()["detail"] and "KGRAG_API__MAX_FILTERS" in r.json()["fix"]
    mixed = {"document_ids": list(range(20)), "sources": [f"s{i}" for i in range(20)],
             "metadata": {f"k{i}": "v" for i in range(11)}}
    assert client.post("/v1/query", json={"question": QUESTION, "filters": mixed}).status_code == 422
    stream = client.post("/v1/query/stream", json={"question": QUESTION, "filters": {"metadata": many}})
    assert stream.status_code == 422
    at_limit = client.post("/v1/query", json={"question": QUESTION, "answer": False,
                                              "filters": {"sources": ["skua"] * 50}})
    assert at_limit.status_code == 200 and at_limit.json()["hits"]
    assert {s["state"] for s in at_limit.json()["stages"].values()} >= {"ran"}


def test_control_characters_never_reach_storage(client: TestClient) -> None:
    for field in ("source", "title"):
        body = {"text": "Lumen Robotics builds warehouse robots.", "source": "lumen", "title": "Lumen"}
        body[field] = f"bad{CONTROLS}name"
        r = client.post("/v1/documents", json=body)
        assert r.status_code == 422, (field, r.text)
        assert field in r.json()["detail"] and "control character" in r.json()["detail"]
        form = {"source": "lumen-upload", "title": "Lumen"}
        form[field] = f"bad{CONTROLS}name"
        r = client.post("/v1/documents", files={"file": ("lumen.txt", b"Lumen Robotics builds robots.")}, data=form)
        assert r.status_code == 422, (field, r.text)
        assert field in r.json()["detail"]
    meta = client.post("/v1/documents", json={"text": "Polar Cells makes batteries.", "source": "polar",
                                              "metadata": {"team\x1b[2J": "ops"}})
    assert meta.status_code == 422, meta.text
    meta = client.post("/v1/documents", json={"text": "Polar Cells makes batteries.", "source": "polar",
                                              "metadata": {"team": "ops\x9b2J"}})
    assert meta.status_code == 422, meta.text
    # Tabs and newlines are text, not terminal commands: a title may still hold them (they are folded).
    ok = client.post("/v1/documents", json={"text": "Polar Cells makes batteries.", "source": "polar",
                                            "title": "Polar\tCells\nInc"})
    assert ok.status_code == 201, ok.text
    assert ok.json()["document"]["title"] == "Polar Cells Inc"
    for doc in client.get("/v1/documents").json()["documents"]:
        assert not any(unicodedata.category(ch) == "Cc" for ch in doc["source"] + doc["title"]), doc


@pytest.mark.parametrize("hidden", ["\u202e", "\u2066", "\u200b", "\ufeff"])
def test_bidi_overrides_and_zero_width_characters_are_refused_in_names(client: TestClient, hidden: str) -> None:
    """"title\u202eevil" was stored (201): a title or source must read as what it is. File names are already
    cleaned of these; JSON and form fields are refused with the character named."""
    for field in ("source", "title"):
        body = {"text": "Lumen Robotics builds warehouse robots.", "source": "lumen", "title": "Lumen"}
        body[field] = f"invoice{hidden}fdp.exe"
        r = client.post("/v1/documents", json=body)
        assert r.status_code == 422, (field, r.text)
        assert field in r.json()["detail"] and f"U+{ord(hidden):04X}" in r.json()["detail"]
        form = {"source": "lumen-upload", "title": "Lumen", field: f"x{hidden}y"}
        r = client.post("/v1/documents", files={"file": ("lumen.txt", b"Lumen Robotics builds robots.")}, data=form)
        assert r.status_code == 422, (field, r.text)
    assert all(d["source"] != "lumen" for d in client.get("/v1/documents").json()["documents"])
    persian = client.post("/v1/documents", json={"text": "Lumen Robotics builds robots.", "source": "fa",
                                                 "title": "می\u200cخواهم"})  # ZWNJ is part of the script
    assert persian.status_code == 201, persian.text
