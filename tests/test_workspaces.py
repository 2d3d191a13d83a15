"""Workspaces and scoped keys over real `kgrag serve` processes, one Postgres, two data homes.

Two workspaces each hold a "Project Falcon" page with the same title and source but different facts
(and the default workspace a third). Every text-returning route, asked with one workspace's key, must
return that workspace's names and sentences and none of the other's; a reader may not write; a key that
names another workspace is refused without saying whether it exists; a revoked key stops working on the
other replica; and deleting a workspace leaves none of its text anywhere in the database.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from kgrag.core.access import Keys
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.schema import REGISTRY
from kgrag.core.settings import DatabaseSettings, RerankSettings, Settings
from kgrag.ingest.pipeline import Ingestor
from kgrag.kg.build import build_graph
from kgrag.kg.store import GraphStore
from kgrag.retrieval.maintenance import publish_bm25
from psycopg import sql
from typer.testing import CliRunner

from tests.browser import Page, browser_page
from tests.conftest import REPO_ROOT, create_database

sys.path.insert(0, str(REPO_ROOT / "bench"))
from replicas import serve_replica, wait_job

ENV_KEY = "env-admin-key-for-the-workspace-tests"
FAST = {"KGRAG_ARTIFACTS__BUILD_DELAY": "0", "KGRAG_ARTIFACTS__POLL_INTERVAL": "2", "KGRAG_GRAPH__PROCESSES": "1",
        "KGRAG_API__API_KEYS": json.dumps([ENV_KEY])}
PAGES = {
    "default": "Project Falcon is sponsored by Dora Dunmore in Quito. Dora Dunmore pays for the Falcon archive.",
    "alpha": "Project Falcon is led by Alice Archer in Oslo. The Falcon budget is four million kroner, approved "
             "by Bergen Holdings. Alice Archer met Oslo Energy to plan the Falcon turbines.",
    "beta": "Project Falcon is run by Zed Zimmerman from Lisbon. The Falcon satellite launches in March with "
            "Tagus Aerospace. Zed Zimmerman chose Tagus Aerospace for the Falcon payload.",
}
WORDS = {"default": ("Dunmore", "Quito"), "alpha": ("Archer", "Oslo", "kroner", "Bergen"),
         "beta": ("Zimmerman", "Lisbon", "Tagus")}
QUESTION = "Who leads Project Falcon and where?"


@dataclass
class Deployment:
    url: str
    homes: tuple[Path, Path]
    keys: dict[str, str]  # "alpha:reader" -> plain key
    key_ids: dict[str, str]
    replica: httpx.Client
    second: httpx.Client


def _settings(home: Path, url: str, workspace: str = "default") -> Settings:
    return Settings(_env_file=None, home=home, database=DatabaseSettings(url=url), workspace=workspace,
                    rerank=RerankSettings(enabled=False))


def _fill(rt: Runtime, folder: Path, workspace: str, text: str) -> None:
    """The workspace's Falcon page (same title and file name in every workspace), its BM25 index and graph."""
    ws = rt.workspace(workspace)
    page = folder / workspace / "falcon.md"
    page.parent.mkdir(parents=True)
    page.write_text(f"# Project Falcon\n\n{text}\n")
    Ingestor.from_runtime(ws).ingest_paths([page])
    publish_bm25(ws)
    build_graph(GraphStore(ws.db), ws.settings.graph, ws.settings.graph_path, ws.spacy(), artifacts=ws.artifacts)


@pytest.fixture(scope="module")
def deployment(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp("workspaces")
    url = create_database(pg_server)
    keys: dict[str, str] = {}
    key_ids: dict[str, str] = {}
    with Runtime(_settings(root / "builder", url), embedder=embedder) as rt:
        for name in ("alpha", "beta"):
            rt.workspaces.create(name)
        for name in ("default", "alpha", "beta"):
            _fill(rt, root / "pages", name, PAGES[name])
        store = Keys(rt.database)
        for name in ("alpha", "beta"):
            for role in ("reader", "writer", "admin"):
                plain, info = store.create(name, role)  # type: ignore[arg-type]
                keys[f"{name}:{role}"], key_ids[f"{name}:{role}"] = plain, info.id
    homes = (root / "replica1", root / "replica2")
    with serve_replica(homes[0], url, root / "replica1.log", **FAST) as one, \
            serve_replica(homes[1], url, root / "replica2.log", **FAST) as two:
        yield Deployment(url, homes, keys, key_ids, one, two)


def _auth(key: str, workspace: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}"}
    if workspace is not None:
        headers["X-Kgrag-Workspace"] = workspace
    return headers


def _text_routes(client: httpx.Client, headers: dict[str, str]) -> dict[str, str]:
    """Every route that returns corpus text, as the key behind ``headers`` sees it: route -> body."""
    out: dict[str, str] = {}

    def get(path: str, **params: Any) -> None:
        r = client.get(path, params=params, headers=headers)
        assert r.status_code == 200, (path, r.status_code, r.text[:500])
        out[f"GET {path} {params}"] = r.text

    def post(path: str, body: dict[str, Any]) -> None:
        r = client.post(path, json=body, headers=headers)
        assert r.status_code == 200, (path, r.status_code, r.text[:500])
        out[f"POST {path} {body.get('stream', '')}"] = r.text

    post("/v1/query", {"question": QUESTION, "answer": True})
    post("/v1/query/stream", {"question": QUESTION, "answer": True})
    chat = {"model": "kgrag", "messages": [{"role": "user", "content": QUESTION}]}
    post("/v1/chat/completions", chat)
    post("/v1/chat/completions", {**chat, "stream": True})
    get("/v1/graph/entities", q="Falcon")
    get("/v1/graph/neighbourhood", entity="Project Falcon")
    get("/v1/graph/overview")
    for fmt in ("json", "graphml", "html"):
        get("/v1/graph/export", format=fmt)
    get("/v1/documents")
    for doc in json.loads(out["GET /v1/documents {}"])["documents"]:
        get(f"/v1/documents/{doc['id']}", include="text,chunks")
    get("/v1/artifacts")
    get("/v1/capabilities")
    return out


def _others(workspace: str) -> list[str]:
    return [w for name, words in WORDS.items() if name != workspace for w in words]


@pytest.mark.parametrize("workspace", ["alpha", "beta"])
def test_every_text_route_gives_a_workspace_key_its_own_text_only(deployment: Deployment, workspace: str) -> None:
    bodies = _text_routes(deployment.replica, _auth(deployment.keys[f"{workspace}:reader"]))
    everything = "\n".join(bodies.values())
    for word in WORDS[workspace]:
        assert word in everything, f"{word} missing from {workspace}'s own answers"
    for route, body in bodies.items():
        for word in _others(workspace):
            assert word not in body, f"{route} for {workspace} holds {word!r} of another workspace"
    answer = json.loads(bodies[f"POST /v1/query {''}"])
    assert answer["hits"] and all(WORDS[workspace][0] in h["text"] for h in answer["hits"])
    assert {s for s in answer["stages"] if answer["stages"][s]["state"] == "ran"} >= {"dense", "bm25", "graph"}


def test_the_env_key_is_an_admin_of_every_workspace_and_defaults_to_the_default(deployment: Deployment) -> None:
    client = deployment.replica
    default = client.post("/v1/query", json={"question": QUESTION, "answer": False}, headers=_auth(ENV_KEY)).text
    assert "Dunmore" in default and not any(w in default for w in _others("default"))
    beta = client.post("/v1/query", json={"question": QUESTION, "answer": False}, headers=_auth(ENV_KEY, "beta")).text
    assert "Zimmerman" in beta and not any(w in beta for w in _others("beta"))
    missing = client.get("/v1/documents", headers=_auth(ENV_KEY, "nosuch"))
    assert missing.status_code == 404 and "kgrag workspace create nosuch" in missing.json()["fix"]
    every = client.get("/v1/workspaces", headers=_auth(ENV_KEY)).json()
    assert every == {"workspaces": ["alpha", "beta", "default"], "current": "default", "role": "admin"}
    own = client.get("/v1/workspaces", headers=_auth(deployment.keys["beta:reader"])).json()
    assert own == {"workspaces": ["beta"], "current": "beta", "role": "reader"}


def test_the_openapi_schema_lists_the_workspace_header_where_a_route_works_in_a_workspace(
        deployment: Deployment) -> None:
    """Generated clients and gateways read the schema: a header the server honours but never declares is
    one they strip or never send."""
    spec = deployment.replica.get("/openapi.json", headers=_auth(ENV_KEY)).json()

    def headers(path: str, method: str) -> set[str]:
        return {p["name"] for p in spec["paths"][path][method].get("parameters", []) if p["in"] == "header"}

    for path, method in (("/v1/query", "post"), ("/v1/documents", "get"), ("/v1/documents", "post")):
        assert "X-Kgrag-Workspace" in headers(path, method), (path, method)
    assert "X-Kgrag-Workspace" not in headers("/v1/workspaces", "get")  # it lists them; it works in none


def test_a_key_naming_another_workspace_is_refused_alike_whether_it_exists_or_not(deployment: Deployment) -> None:
    client = deployment.replica
    key = deployment.keys["alpha:admin"]
    existing = client.get("/v1/documents", headers=_auth(key, "beta"))
    absent = client.get("/v1/documents", headers=_auth(key, "zeta"))
    invalid = client.get("/v1/documents", headers=_auth(key, "Not A Name"))
    assert existing.status_code == absent.status_code == invalid.status_code == 403
    assert existing.json() == absent.json() == invalid.json()
    assert "beta" not in existing.text and "Zimmerman" not in existing.text
    own = client.get("/v1/documents", headers=_auth(key, "alpha"))
    assert own.status_code == 200 and "Archer" not in own.text  # listing has titles, not text
    assert client.get("/v1/documents", headers=_auth("kgr_nosuch_key")).status_code == 401


def test_roles_reader_writer_admin_and_the_audit_log(deployment: Deployment) -> None:
    client = deployment.replica
    reader, writer, admin = (_auth(deployment.keys[f"beta:{r}"]) for r in ("reader", "writer", "admin"))
    note = {"text": "Tagus Aerospace also builds the Falcon ground station.", "title": "Ground", "source": "ground"}
    assert client.post("/v1/documents", json=note, headers=reader).status_code == 403
    assert client.post("/v1/graph/build", headers=reader).status_code == 403
    uploaded = client.post("/v1/documents", json=note, headers=writer)
    assert uploaded.status_code == 201, uploaded.text
    doc_id = uploaded.json()["document"]["id"]
    assert client.delete(f"/v1/documents/{doc_id}", headers=reader).status_code == 403
    assert client.post("/v1/graph/build", headers=writer).status_code == 403
    assert client.delete(f"/v1/documents/{doc_id}", headers=writer).status_code == 200
    job = client.post("/v1/graph/build", headers=admin)
    assert job.status_code == 202, job.text
    done = wait_job(httpx.Client(base_url=str(client.base_url), headers=admin, timeout=60), job.json()["id"], 240)
    assert done["state"] == "succeeded", done
    # jobs live in their workspace: another workspace's key (on either replica) does not find it
    other = deployment.second.get(f"/v1/jobs/{job.json()['id']}", headers=_auth(deployment.keys["alpha:admin"]))
    assert other.status_code == 404
    result = CliRunner().invoke(_cli(), ["audit", "--workspace", "beta"], env=_cli_env(deployment))
    assert result.exit_code == 0, result.output
    for action, key in (("document.added", "beta:writer"), ("document.delete", "beta:writer"),
                        ("graph.build", "beta:admin")):
        line = next((ln for ln in result.output.splitlines() if action in ln), "")
        assert deployment.key_ids[key] in line, (action, result.output)
    assert deployment.keys["beta:writer"] not in result.output  # ids only, never a key


def test_a_revoked_key_is_refused_by_the_other_replica_at_once(deployment: Deployment) -> None:
    plain = deployment.keys["alpha:writer"]
    assert deployment.second.get("/v1/documents", headers=_auth(plain)).status_code == 200
    result = CliRunner().invoke(_cli(), ["keys", "revoke", deployment.key_ids["alpha:writer"]],
                                env=_cli_env(deployment))
    assert result.exit_code == 0, result.output
    for client in (deployment.second, deployment.replica):  # within the poll interval: at the next request
        refused = client.get("/v1/documents", headers=_auth(plain))
        assert refused.status_code == 401, refused.text
    audit = CliRunner().invoke(_cli(), ["audit", "--workspace", "alpha"], env=_cli_env(deployment))
    assert any("key.revoke" in line and "cli" in line and deployment.key_ids["alpha:writer"] in line
               for line in audit.output.splitlines()), audit.output


def test_32_concurrent_clients_alternating_workspaces_never_see_the_other(deployment: Deployment) -> None:
    errors: list[str] = []
    base = str(deployment.replica.base_url)

    def client_run(i: int) -> None:
        with httpx.Client(base_url=base, timeout=120) as http:
            for j in range(4):
                workspace = ("alpha", "beta")[(i + j) % 2]
                headers = _auth(deployment.keys[f"{workspace}:reader"])
                if j % 2:
                    r = http.get("/v1/graph/neighbourhood", params={"entity": "Project Falcon"}, headers=headers)
                else:
                    r = http.post("/v1/query", json={"question": QUESTION, "answer": True}, headers=headers)
                if r.status_code != 200:
                    errors.append(f"{workspace} {r.status_code} {r.text[:200]}")
                elif WORDS[workspace][0] not in r.text or any(w in r.text for w in _others(workspace)):
                    errors.append(f"client {i} request {j} for {workspace} got: {r.text[:300]}")

    threads = [threading.Thread(target=client_run, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]


def _cli() -> Any:
    from kgrag.api.cli import app

    return app


def _cli_env(deployment: Deployment) -> dict[str, str]:
    return {"KGRAG_HOME": str(deployment.homes[0].parent / "cli"), "KGRAG_DATABASE__URL": deployment.url,
            "KGRAG_RERANK__ENABLED": "false", "KGRAG_ANSWER__BACKEND": "extractive"}


def test_cli_workspace_option_reads_one_workspace(deployment: Deployment, tmp_path: Path) -> None:
    runner = CliRunner()
    env = _cli_env(deployment)
    export = tmp_path / "beta.json"
    outputs = {}
    for command in (["query", QUESTION, "--signals", "dense,bm25"], ["ask", QUESTION, "--signals", "dense,bm25"],
                    ["documents", "list"], ["graph", "export", "-f", "json", "-o", str(export)]):
        result = runner.invoke(_cli(), [*command, "--workspace", "beta"], env=env)
        assert result.exit_code == 0, (command, result.output)
        outputs[command[0]] = result.output
    outputs["export"] = export.read_text()
    for name in ("query", "ask", "export"):
        assert "Zimmerman" in outputs[name], name
    for name, text in outputs.items():
        assert not any(w in text for w in _others("beta")), (name, text[:500])
    listed = runner.invoke(_cli(), ["workspace", "list"], env=env)
    assert listed.exit_code == 0 and "alpha" in listed.output and "beta" in listed.output
    nosuch = runner.invoke(_cli(), ["documents", "list", "--workspace", "nosuch"], env=env)
    assert nosuch.exit_code == 1 and "kgrag workspace create nosuch" in nosuch.output


def test_workspace_tables_match_the_default_workspace(deployment: Deployment) -> None:
    """Every table a workspace's code names exists in its schema: a connection that searches only that
    schema can never fall through to the default workspace's rows."""
    with psycopg.connect(deployment.url) as conn:
        def tables(schema: str) -> set[str]:
            return {r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables"
                                               " WHERE table_schema = %s", (schema,))}
        assert tables("kgrag_ws_alpha") == tables("public") == tables("kgrag_ws_beta")


def test_deleting_a_workspace_leaves_none_of_its_text_in_the_database(
        deployment: Deployment, embedder: Embedder, tmp_path: Path) -> None:
    secret = "Quorvath Ellindre"
    with Runtime(_settings(deployment.homes[0].parent / "builder", deployment.url), embedder=embedder) as rt:
        rt.workspaces.create("gamma")
        _fill(rt, tmp_path, "gamma", f"Project Falcon is audited by {secret} at Kelmscott Abbey.")
        folder = rt.workspace("gamma").settings.workspace_home
        assert (folder / "graph").is_dir()
        plain, _ = Keys(rt.database).create("gamma", "reader")
    found = deployment.replica.post("/v1/query", json={"question": "Who audits Project Falcon?", "answer": False},
                                    headers=_auth(plain))
    assert found.status_code == 200 and secret in found.text
    result = CliRunner().invoke(_cli(), ["workspace", "delete", "gamma", "--yes"],
                                env={**_cli_env(deployment), "KGRAG_HOME": str(folder.parent.parent)})
    assert result.exit_code == 0, result.output
    assert not folder.exists()
    assert deployment.replica.get("/v1/documents", headers=_auth(plain)).status_code == 401
    gone = deployment.replica.get("/v1/documents", headers=_auth(ENV_KEY, "gamma"))
    assert gone.status_code == 404
    with psycopg.connect(deployment.url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'kgrag_ws_gamma'").fetchone()[0] == 0
        assert conn.execute(f"SELECT count(*) FROM {REGISTRY}.api_keys WHERE workspace = 'gamma'").fetchone()[0] == 0
        columns = conn.execute(
            "SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
            " AND data_type IN ('text', 'jsonb', 'bytea', 'character varying')").fetchall()
        assert {c[1] for c in columns} >= {"chunks", "kg_mentions", "kgrag_artifact_parts", "audit"}
        word = secret.split()[0]
        for schema, table, column, kind in columns:
            test = "position(convert_to(%s, 'UTF8') IN {}) > 0" if kind == "bytea" else "{}::text LIKE %s"
            query = sql.SQL("SELECT count(*) FROM {}.{} WHERE " + test).format(
                sql.Identifier(schema), sql.Identifier(table), sql.Identifier(column))
            hits = conn.execute(query, (word if kind == "bytea" else f"%{word}%",)).fetchone()[0]
            assert hits == 0, f"{schema}.{table}.{column} still holds gamma's text"


def _ask_in_browser(page: Page, question: str) -> str:
    page.wait_for("document.getElementById('ask-button') && !document.getElementById('ask-button').disabled")
    page.evaluate(f"""(() => {{ const q = document.getElementById('question');
        q.value = {json.dumps(question)}; document.getElementById('ask-button').click(); }})()""")
    page.wait_for("['cited', 'answered', 'error'].includes(document.body.dataset.askState)", timeout=60)
    return str(page.evaluate("document.getElementById('main').innerText"))


def test_the_web_ui_shows_the_workspace_and_only_the_keys_workspaces(deployment: Deployment) -> None:
    url = str(deployment.replica.base_url).rstrip("/")
    options = "[...document.querySelectorAll('#workspace option')].map(o => o.value)"
    with browser_page() as page:
        page.goto(f"{url}/")
        page.wait_for("document.getElementById('api-key') !== null")
        page.evaluate(f"localStorage.setItem('kgrag.apiKey', {json.dumps(deployment.keys['alpha:reader'])})")
        page.goto(f"{url}/?as=alpha#ask")  # another URL: a fresh page load (a hash alone would not reload)
        page.wait_for("document.body.dataset.workspace === 'alpha'")
        assert page.evaluate(options) == ["alpha"]  # a key's own workspace: no other name is shown
        text = _ask_in_browser(page, QUESTION)
        assert "Archer" in text and not any(w in text for w in _others("alpha"))

        page.evaluate(f"localStorage.setItem('kgrag.apiKey', {json.dumps(ENV_KEY)});"
                      "localStorage.removeItem('kgrag.workspace')")
        page.goto(f"{url}/?as=env#ask")  # another URL: a fresh page load, as after entering the key
        page.wait_for("document.body.dataset.workspace === 'default'")
        assert page.evaluate(options) == ["alpha", "beta", "default"]
        page.evaluate("(() => { const s = document.getElementById('workspace'); s.value = 'beta';"
                      " s.dispatchEvent(new Event('change')); })()")
        page.wait_for("document.body.dataset.workspace === 'beta'")
        text = _ask_in_browser(page, QUESTION)
        assert "Zimmerman" in text and not any(w in text for w in _others("beta"))


def test_an_expired_key_is_refused_and_expiry_is_read_as_written(deployment: Deployment, tmp_path: Path) -> None:
    from kgrag.api.cli.access import parse_expiry
    from kgrag.core.errors import InvalidInputError

    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    assert parse_expiry("30d", now) == now + timedelta(days=30)
    assert parse_expiry("90m", now) == now + timedelta(minutes=90)
    assert parse_expiry("2027-01-31", now) == datetime(2027, 1, 31, tzinfo=UTC)
    for bad in ("2025-01-01", "soon"):
        with pytest.raises(InvalidInputError):
            parse_expiry(bad, now)
    with Runtime(_settings(tmp_path / "home", deployment.url)) as rt:
        store = Keys(rt.database)
        plain, info = store.create("beta", "reader", expires_at=datetime.now(UTC) + timedelta(seconds=2))
        assert deployment.replica.get("/v1/documents", headers=_auth(plain)).status_code == 200
        time.sleep(2.5)
        assert deployment.second.get("/v1/documents", headers=_auth(plain)).status_code == 401
        assert next(k for k in store.list("beta") if k.id == info.id).state == "expired"
