"""`kgrag mcp --transport http` checks stored keys exactly as the REST API does, and every refusal is audited.

The hole this closes: started for workspace alpha with no KGRAG_API__API_KEYS but with keys made by
`kgrag keys create`, the MCP endpoint served alpha's documents to every caller (no key, another
workspace's key, a revoked key, a deleted workspace's key). Here no environment key is set at all, only
stored ones, and a real uvicorn server answers the MCP client's JSON-RPC over HTTP.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from kgrag.api.app import create_app
from kgrag.api.deps import build_resources
from kgrag.api.mcp_server import MCP_PATH, http_app
from kgrag.core.access import Audit, Keys
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import AnswerSettings, DatabaseSettings, RerankSettings, Settings
from kgrag.ingest.pipeline import Ingestor
from kgrag.retrieval.maintenance import publish_bm25

from tests.conftest import REPO_ROOT, create_database

sys.path.insert(0, str(REPO_ROOT / "bench"))
import soak  # the uvicorn-in-a-thread the other API tests serve with

ALPHA_TEXT = "Project Heron is led by Astrid Alvestad in Oslo."
BETA_TEXT = "Project Heron is run by Bruno Bettencourt from Porto."
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
ACCEPT = {"Accept": "application/json, text/event-stream"}


@dataclass
class Served:
    url: str
    keys: dict[str, str]  # "alpha:reader" -> plain key
    key_ids: dict[str, str]
    rt: Runtime
    audit: Audit


def _settings(home: Path, url: str, workspace: str = "default") -> Settings:
    return Settings(_env_file=None, home=home, database=DatabaseSettings(url=url), workspace=workspace,
                    rerank=RerankSettings(enabled=False), answer=AnswerSettings(backend="extractive"))


def _fill(rt: Runtime, folder: Path, workspace: str, text: str) -> None:
    ws = rt.workspace(workspace)
    page = folder / workspace / "heron.md"
    page.parent.mkdir(parents=True)
    page.write_text(f"# Project Heron\n\n{text}\n")
    Ingestor.from_runtime(ws).ingest_paths([page])
    publish_bm25(ws)


@pytest.fixture(scope="module")
def served(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`kgrag mcp --transport http --workspace alpha` as the command builds it, with stored keys only."""
    root = tmp_path_factory.mktemp("mcp-keys")
    url = create_database(pg_server)
    keys: dict[str, str] = {}
    key_ids: dict[str, str] = {}
    with Runtime(_settings(root / "builder", url), embedder=embedder) as admin:
        for name in ("alpha", "beta", "gamma"):
            admin.workspaces.create(name)
        _fill(admin, root / "pages", "alpha", ALPHA_TEXT)
        _fill(admin, root / "pages", "beta", BETA_TEXT)
        store = Keys(admin.database)
        for name, role in (("alpha", "reader"), ("alpha", "admin"), ("alpha", "revoked"), ("beta", "reader"),
                           ("beta", "admin"), ("gamma", "reader")):
            plain, info = store.create(name, "reader" if role == "revoked" else role)  # type: ignore[arg-type]
            keys[f"{name}:{role}"], key_ids[f"{name}:{role}"] = plain, info.id
        store.revoke(key_ids["alpha:revoked"])
        admin.workspaces.delete("gamma")
    rt = Runtime(_settings(root / "mcp", url, workspace="alpha"), embedder=embedder)
    res = build_resources(rt)
    try:
        with soak.serve_in_thread(http_app(res)) as base:
            yield Served(base + MCP_PATH, keys, key_ids, rt, Audit(rt.database))
    finally:
        res.close()
        rt.close()


def _call(served: Served, key: str | None, body: dict[str, Any] = LIST_TOOLS) -> httpx.Response:
    headers = {**ACCEPT, **({"Authorization": f"Bearer {key}"} if key else {})}
    return httpx.post(served.url, headers=headers, json=body, timeout=120)


def _denials(served: Served, workspace: str) -> list[tuple[str, str]]:
    return [(e.key_id, e.action) for e in served.audit.list(workspace=workspace, limit=1000)
            if e.action.startswith("denied.")]


def test_no_key_or_an_invalid_key_gets_401_and_is_audited(served: Served) -> None:
    for key, audited_as in ((None, "none"), ("kgr_0123456789ab_not-a-real-secret", "invalid"),
                            (served.keys["alpha:revoked"], "invalid"), (served.keys["gamma:reader"], "invalid")):
        before = _denials(served, "alpha").count((audited_as, "denied.401"))
        r = _call(served, key)
        assert r.status_code == 401, (key, r.text)
        assert r.headers["content-type"] == "application/problem+json" and r.json()["fix"]
        assert r.headers["www-authenticate"].startswith("Bearer")
        assert _denials(served, "alpha").count((audited_as, "denied.401")) == before + 1, key


def test_another_workspaces_keys_get_403_and_are_audited_under_their_id(served: Served) -> None:
    for name in ("beta:reader", "beta:admin"):
        r = _call(served, served.keys[name])
        assert r.status_code == 403, (name, r.text)
        assert "alpha" in r.json()["fix"] and ALPHA_TEXT.split()[-1].strip(".") not in r.text
        assert (served.key_ids[name], "denied.403") in _denials(served, "beta")


def test_the_workspaces_own_reader_key_reads_its_documents_only(served: Served) -> None:
    listed = _call(served, served.keys["alpha:reader"])
    assert listed.status_code == 200, listed.text
    assert {t["name"] for t in listed.json()["result"]["tools"]} >= {"search", "ask"}
    found = _call(served, served.keys["alpha:reader"], {
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search", "arguments": {"question": "Who leads Project Heron?", "top_k": 3}}})
    assert found.status_code == 200, found.text
    text = found.text
    assert "Alvestad" in text and "Bettencourt" not in text


def test_a_key_revoked_while_serving_is_refused_on_its_next_request(served: Served) -> None:
    plain, info = Keys(served.rt.database).create("alpha", "reader")
    assert _call(served, plain).status_code == 200
    Keys(served.rt.database).revoke(info.id)
    assert _call(served, plain).status_code == 401


def test_a_deleted_workspace_keeps_its_audit_rows(served: Served) -> None:
    # gamma was deleted in the fixture; its key is refused (401 above), and the rows of its life stay
    with Runtime(served.rt.settings.model_copy(update={"workspace": "default"})) as rt:
        rt.workspaces.create("delta")
        Audit(rt.database).record("cli", "delta", "workspace.create", "delta")
        rt.workspaces.delete("delta")
        assert [e.action for e in Audit(rt.database).list(workspace="delta")] == ["workspace.create"]


def test_the_rest_api_audits_its_refusals_too(served: Served, embedder: Embedder) -> None:
    settings = served.rt.settings.model_copy(update={"workspace": "default"})
    with TestClient(create_app(runtime=Runtime(settings, embedder=embedder))) as client:
        assert client.get("/v1/documents").status_code == 401
        named = client.get("/v1/documents", headers={"Authorization": f"Bearer {served.keys['beta:reader']}",
                                                     "X-Kgrag-Workspace": "alpha"})
        assert named.status_code == 403
        writer = client.delete("/v1/documents/1", headers={"Authorization": f"Bearer {served.keys['beta:reader']}"})
        assert writer.status_code == 403
    assert ("none", "denied.401") in _denials(served, "default")
    assert (served.key_ids["beta:reader"], "denied.403") in _denials(served, "alpha")
    assert _denials(served, "beta").count((served.key_ids["beta:reader"], "denied.403")) >= 1
