"""Once a delete returns, nothing that came only from that document is left to see: not in the
graph tables, not in any of the three exports, not in the graph views, not in the BM25 vocabulary on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient
from kgrag.core.models import Embedder
from kgrag.core.settings import RetrievalSettings, Settings

from tests.test_api_graph import wait_for
from tests.test_api_query import ingest_examples
from tests.test_api_support import api_settings, client_for

SECRET = "Zorvanne Quillfeather founded Halvorix Instruments in Brenmoor Bay."
NAMES = ("Zorvanne", "Halvorix", "zorvanne", "halvorix")


def _bm25_files(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (home / "index").rglob("*") if p.is_file())


def test_delete_leaves_no_trace_in_graph_rows_exports_or_bm25(make_settings: Callable[..., Settings],
                                                                embedder: Embedder) -> None:
    settings = api_settings(make_settings, retrieval=RetrievalSettings())
    with client_for(settings, embedder) as client:
        ingest_examples(client)
        up = client.post("/v1/documents", json={"text": SECRET, "title": "Founding note", "source": "note"})
        assert up.status_code == 201, up.text
        doc_id = up.json()["document"]["id"]
        job = client.post("/v1/graph/build").json()
        assert wait_for(client, job["id"])["state"] == "succeeded"
        # The BM25 index is written on the first query; the graph holds the secret's entities.
        assert client.post("/v1/query", json={"question": "Who founded Halvorix Instruments?",
                                              "answer": False}).json()["hits"]
        assert b"halvorix" in _bm25_files(settings.home)
        for fmt in ("json", "graphml", "html"):
            assert "Halvorix" in client.get("/v1/graph/export", params={"format": fmt}).text, fmt

        assert client.delete(f"/v1/documents/{doc_id}").status_code == 200

        db = client.app.state.resources.runtime.db
        with db.connection() as conn:
            keys = [r[0] for r in conn.execute("SELECT key FROM kg_entities").fetchall()]
        assert keys and not any(name in k for k in keys for name in NAMES), "orphaned entities are pruned"
        for fmt in ("json", "graphml", "html"):
            exported = client.get("/v1/graph/export", params={"format": fmt})
            assert exported.status_code == 200, exported.text
            assert not any(name in exported.text for name in NAMES), fmt
            assert "Tomas Berg" in exported.text, "entities other documents still cite stay"
        assert b"halvorix" not in _bm25_files(settings.home), "the old BM25 vocabulary is gone from disk"
        after = client.post("/v1/query", json={"question": "Who founded Halvorix Instruments?"}).json()
        shown = [after.get("answer"), after["citations"], after["hits"], after["warnings"]]
        assert "Quillfeather" not in str(shown)


PRIVATE = ("Oskari Zyllenbrandt met Tomas Berg at Lumen Robotics. Oskari Zyllenbrandt and Vesna Quillfeather "
           "later sailed the Kelpie with Tomas Berg.")
PRIVATE_NAMES = ("Zyllenbrandt", "Quillfeather", "Oskari", "Vesna", "Private memo")


def _graph_routes(client: TestClient) -> dict[str, str]:
    """Every /v1/graph view a browser can ask for, for the private names and for a shared entity: the
    bodies it answered 200 with (a 404 repeats the name asked for, and only that)."""
    responses = {f"search {q}": client.get("/v1/graph/entities", params={"q": q})
                 for q in ("Zyllenbrandt", "Oskari", "Vesna Quillfeather", "Private memo", "Tomas", "Berg")}
    for name in ("Oskari Zyllenbrandt", "Vesna Quillfeather", "Private memo", "Tomas Berg", "Lumen Robotics"):
        responses[f"neighbourhood {name}"] = client.get("/v1/graph/neighbourhood",
                                                        params={"entity": name, "limit": 200})
    responses["overview"] = client.get("/v1/graph/overview", params={"limit": 300})
    assert all(r.status_code in (200, 404) for r in responses.values()), responses
    return {route: r.text for route, r in responses.items() if r.status_code == 200}


def test_graph_views_show_nothing_of_a_deleted_document(make_settings: Callable[..., Settings],
                                                        embedder: Embedder) -> None:
    settings = api_settings(make_settings, retrieval=RetrievalSettings())
    with client_for(settings, embedder) as client:
        ingest_examples(client)
        up = client.post("/v1/documents", json={"text": PRIVATE, "title": "Private memo", "source": "memo"})
        assert up.status_code == 201, up.text
        job = client.post("/v1/graph/build").json()
        assert wait_for(client, job["id"])["state"] == "succeeded"
        before = _graph_routes(client)
        assert "Oskari Zyllenbrandt" in before["search Zyllenbrandt"]
        assert "Zyllenbrandt" in before["neighbourhood Tomas Berg"], "the shared entity links to the private one"
        assert "Quillfeather" in before["neighbourhood Oskari Zyllenbrandt"]

        assert client.delete(f"/v1/documents/{up.json()['document']['id']}").status_code == 200
        after = _graph_routes(client)
        for route, text in after.items():
            assert not any(name in text for name in PRIVATE_NAMES), (route, text[:800])
        for name in ("Oskari Zyllenbrandt", "Vesna Quillfeather", "Private memo"):
            assert f"neighbourhood {name}" not in after, f"{name} is not found any more"
        shared = client.get("/v1/graph/neighbourhood", params={"entity": "Tomas Berg", "limit": 200}).json()
        assert shared["nodes"] and shared["edges"], "the shared entity stays, with its other links"
        assert all(ev["sentences"] for e in shared["edges"] for ev in e["evidence"])
        assert "Tomas Berg" in after["search Tomas"]
