"""`kgrag mcp` through the official mcp client: over stdio (the command spawned as a host would) and over
streamable HTTP (a real server on a free port), every tool, keys refused over HTTP, and ``search`` equal
to ``POST /v1/query``. One corpus for the module: the examples, ingested once, with a built graph."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx
import httpx2
import pytest
import uvicorn
from fastapi.testclient import TestClient
from kgrag.api.app import create_app
from kgrag.api.mcp_server import MCP_PATH, http_app
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import (
    AnswerSettings,
    ApiSettings,
    ArtifactSettings,
    DatabaseSettings,
    RerankSettings,
    RetrievalSettings,
    Settings,
)
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import EXAMPLES_DIR, REPO_ROOT, create_database
from tests.test_api_support import wait_for_artifacts

KEY = "mcp-test-key-0123456789"
QUESTION = "Who designed the flight controller of the Skua drone?"
REFUSED = "What is the boiling point of mercury?"
TOOLS = {"search", "ask", "list_documents", "get_document", "graph_neighbourhood"}
T = TypeVar("T")

Session = Callable[[Callable[[ClientSession], Awaitable[T]]], T]


@dataclass
class Corpus:
    client: TestClient
    settings: Settings
    env: dict[str, str]
    """What a host would put in the stdio server's `env` block to reach the same store."""


@pytest.fixture(scope="module")
def corpus(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    url = create_database(pg_server)
    home = tmp_path_factory.mktemp("mcp")
    settings = Settings(_env_file=None, home=home / "home", database=DatabaseSettings(url=url),
                        retrieval=RetrievalSettings(signals=("dense", "bm25", "graph")),
                        rerank=RerankSettings(enabled=False), answer=AnswerSettings(backend="extractive"),
                        api=ApiSettings(api_keys=[KEY]),
                        artifacts=ArtifactSettings(build_delay=0.0, background_graph_builds=False))
    rt = Runtime(settings, embedder=embedder)
    try:
        with TestClient(create_app(runtime=rt), headers={"Authorization": f"Bearer {KEY}"}) as client:
            report = client.app.state.resources.ingestor.ingest_paths([EXAMPLES_DIR])
            assert not report.failed and report.added
            wait_for_artifacts(client)
            job = client.post("/v1/graph/build").json()
            deadline = time.monotonic() + 180
            while job["state"] not in ("succeeded", "failed") and time.monotonic() < deadline:
                time.sleep(0.5)
                job = client.get(f"/v1/jobs/{job['id']}").json()
            assert job["state"] == "succeeded", job
            env = {"KGRAG_HOME": str(home / "home-stdio"), "KGRAG_DATABASE__URL": url,
                   "KGRAG_RETRIEVAL__SIGNALS": "dense,bm25,graph", "KGRAG_RERANK__ENABLED": "false",
                   "KGRAG_ANSWER__BACKEND": "extractive", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                   "TOKENIZERS_PARALLELISM": "false", "TMPDIR": os.environ.get("TMPDIR", "/tmp")}
            yield Corpus(client, settings, env)
    finally:
        rt.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def http_url(corpus: Corpus) -> Iterator[str]:
    """The MCP endpoint served by uvicorn on a free port, over the REST app's own resources (built once).
    Stopping it must run ``on_shutdown``: `kgrag mcp` closes its resources there, the one place that runs on
    SIGTERM (uvicorn re-raises the signal after its shutdown; the embedded PostgreSQL once outlived it)."""
    port = _free_port()
    shut_down = threading.Event()
    app = http_app(corpus.client.app.state.resources, on_shutdown=shut_down.set)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="mcp-http", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the MCP HTTP server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}{MCP_PATH}"
    server.should_exit = True
    thread.join(timeout=15)
    assert shut_down.is_set(), "the MCP app's shutdown did not run on_shutdown"


def over_http(url: str, key: str | None) -> Session[Any]:
    def run(work: Callable[[ClientSession], Awaitable[T]]) -> T:
        async def main() -> T:
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120)) as http, \
                    streamable_http_client(url, http_client=http) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                return await work(session)

        return anyio.run(main)

    return run


def over_stdio(env: dict[str, str]) -> Session[Any]:
    kgrag = Path(sys.executable).with_name("kgrag")  # the console script, as a host's config names it
    params = StdioServerParameters(command=str(kgrag), args=["mcp"], env=env)

    def run(work: Callable[[ClientSession], Awaitable[T]]) -> T:
        async def main() -> T:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return await work(session)

        return anyio.run(main)

    return run


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    # what a host without structured output reads: the same object as JSON text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def without_timings(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "timings"}


async def every_tool(session: ClientSession) -> dict[str, Any]:
    """Calls each tool the way an agent would chain them: find, read, follow the graph, answer."""
    listed = await session.list_tools()
    out: dict[str, Any] = {"tools": {t.name: t for t in listed.tools}}
    out["search"] = structured(await session.call_tool("search", {"question": QUESTION, "top_k": 3}))
    docs = structured(await session.call_tool("list_documents", {"limit": 50}))
    out["documents"] = docs
    skua = next(d for d in docs["documents"] if d["source"].endswith("skua_drone.md"))
    out["document"] = structured(await session.call_tool("get_document", {"document_id": skua["id"]}))
    out["neighbourhood"] = structured(await session.call_tool("graph_neighbourhood", {"entity": "Tomas Berg"}))
    out["ask"] = structured(await session.call_tool("ask", {"question": QUESTION}))
    out["refused"] = structured(await session.call_tool("ask", {"question": REFUSED}))
    out["missing"] = await session.call_tool("get_document", {"document_id": 999999})
    out["empty"] = await session.call_tool("search", {"question": ""})
    return out


def check_every_tool(out: dict[str, Any], corpus: Corpus) -> None:
    client = corpus.client
    tools = out["tools"]
    assert set(tools) == TOOLS
    assert all(t.annotations.read_only_hint for t in tools.values())
    assert "question" in tools["search"].input_schema["required"]

    rest = client.post("/v1/query", json={"question": QUESTION, "top_k": 3, "answer": False}).json()
    assert without_timings(out["search"]) == without_timings(rest)
    hits = out["search"]["hits"]
    assert hits[0]["source"].endswith(("skua_drone.md", "tomas_berg.txt")) and hits[0]["ranks"]
    assert any("graph" in h["ranks"] and h["explanations"]["graph"]["path"] for h in hits), hits

    assert {d["source"].rsplit("/", 1)[-1] for d in out["documents"]["documents"]} >= {"skua_drone.md",
                                                                                        "tomas_berg.txt"}
    doc = out["document"]
    rest_doc = client.get(f"/v1/documents/{doc['id']}", params={"include": "text,chunks"}).json()
    assert doc == rest_doc
    assert "flight controller" in doc["text"] and doc["chunks"][0]["position"] == 0
    assert len(doc["chunks"]) == doc["chunk_count"]

    view = out["neighbourhood"]
    assert view["center"] and any(n["name"] == "Tomas Berg" for n in view["nodes"])
    assert any(e["evidence"] and e["evidence"][0]["sentences"] for e in view["edges"])

    ask = out["ask"]
    assert ask["answer"]["mode"] == "extractive" and "Tomas Berg" in ask["answer"]["text"]
    assert ask["citations"] and all(f"[{c['number']}]" in ask["answer"]["text"] for c in ask["citations"])
    rest_ask = client.post("/v1/query", json={"question": QUESTION}).json()
    assert ask["answer"] == rest_ask["answer"] and ask["citations"] == rest_ask["citations"]
    refused = out["refused"]
    assert refused["answer"]["mode"] == "refused" and not refused["citations"]
    assert refused["gate"]["verdict"] == "refuse" or refused["answer"]["text"]

    missing = out["missing"]
    assert missing.is_error and "no document with id 999999" in missing.content[0].text
    assert "kgrag documents list" in missing.content[0].text  # the fix travels with the error
    assert out["empty"].is_error and "question" in out["empty"].content[0].text


def test_every_tool_over_streamable_http_equals_the_rest_api(corpus: Corpus, http_url: str) -> None:
    check_every_tool(over_http(http_url, KEY)(every_tool), corpus)


def test_http_refuses_requests_without_a_valid_key(http_url: str) -> None:
    for headers in ({}, {"Authorization": "Bearer not-the-key"}, {"Authorization": f"Basic {KEY}"}):
        r = httpx.post(http_url, headers={**headers, "Accept": "application/json, text/event-stream"},
                       json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert r.status_code == 401, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert r.headers["www-authenticate"].startswith("Bearer") and r.json()["fix"]
    for key in (None, "not-the-key"):
        assert isinstance(refused_handshake(http_url, key), MCPError)


def refused_handshake(url: str, key: str | None) -> BaseException | None:
    """What the official client's handshake raises without a valid key (None: it was let in)."""

    async def main() -> BaseException | None:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with httpx2.AsyncClient(headers=headers) as http, \
                streamable_http_client(url, http_client=http) as (read, write), ClientSession(read, write) as session:
            try:
                await session.initialize()
            except MCPError as exc:
                return exc
        return None

    return anyio.run(main)


def test_stdio_server_spawned_as_a_host_would(corpus: Corpus) -> None:
    """A separate process on the same store, as `kgrag mcp` from a host's mcpServers config: its search
    equals the REST API's too (the same database and published artifacts, the same core)."""
    check_every_tool(over_stdio(corpus.env)(every_tool), corpus)


def test_the_mcp_examples_in_docs_api_work(http_url: str) -> None:
    """The MCP section's curl runs as written (path, headers, body) against a real server, and its host
    configurations start `kgrag mcp` over stdio and reach /mcp with a bearer key over HTTP."""
    doc = (REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = doc.split("\n## MCP server (agents)\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(curl .*?)\n```", section, re.DOTALL)
    assert block, "no curl example in the MCP section"
    words = shlex.split(block.group(1).split("\n#", 1)[0].replace("\\\n", " "))
    url = next(w for w in words if "/mcp" in w)
    headers = dict(words[i + 1].replace("$KEY", KEY).split(": ", 1) for i, w in enumerate(words) if w == "-H")
    reply = httpx.post(http_url + url[url.index("/mcp") + len("/mcp"):], headers=headers,
                       content=words[words.index("-d") + 1], timeout=60)
    assert reply.status_code == 200, reply.text
    result = reply.json()["result"]
    assert not result["isError"] and result["structuredContent"]["hits"], result
    assert any("polar_cells" in h["source"] for h in result["structuredContent"]["hits"])

    configs = [json.loads(b)["mcpServers"]["kgrag"] for b in re.findall(r"```json\n(.*?)\n```", section, re.DOTALL)]
    stdio = next(c for c in configs if "command" in c)
    assert stdio["command"].endswith("/.venv/bin/kgrag") and stdio["args"] == ["mcp"] and "KGRAG_HOME" in stdio["env"]
    http = next(c for c in configs if "url" in c)
    assert http["url"].endswith(MCP_PATH) and http["headers"]["Authorization"].startswith("Bearer ")
