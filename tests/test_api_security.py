"""Security over HTTP: one auth dependency on every route, hostile upload names, injection strings.

Routes are enumerated from ``app.routes``, so a route added later is covered (or fails the test)
without anyone remembering to list it here.
"""

from __future__ import annotations

import re
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import psycopg
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from kgrag.api.deps import require_api_key
from kgrag.core.models import Embedder
from kgrag.core.settings import ApiSettings, Settings
from kgrag.core.text import invisible_char

from tests.test_api_auth import KEYS, assert_problem, bearer
from tests.test_api_support import api_settings, client_for

OPEN_API_ROUTES = {"/healthz", "/readyz"}
PAGE_ROUTES = {"/", "/docs"}
"""The web UI and Swagger UI pages: packaged files with no data in them, which must load to send a key at all."""
DOCS_ROUTES = {"/openapi.json", "/static"}
"""FastAPI's schema and the pages' static assets (the same files for everyone)."""

INJECTIONS = [
    "'; DROP TABLE chunks; --",
    '" OR 1=1 --',
    "') OR ('1'='1",
    "$$",
    "$tag$ SELECT 1 $tag$",
    "%s",
    "%(source)s {0} {}",
    "\\'; DELETE FROM documents; --\\",
    "Ω≈ç√ 日本語 🙂 \u202eevil",
    "x\x00y",
]


def _depends_on(dependant: Any, target: Callable[..., Any]) -> bool:
    return any(d.call is target or _depends_on(d, target) for d in dependant.dependencies)


def _routes(app: Any) -> list[Any]:
    """Every route as served. FastAPI >= 0.120 keeps included routers lazily in ``app.routes``;
    ``iter_route_contexts`` flattens them with the dependencies ``include_router`` adds."""
    try:
        from fastapi.routing import iter_route_contexts
    except ImportError:  # older FastAPI: app.routes is already flat
        return list(app.routes)
    return list(iter_route_contexts(app.routes))


@pytest.fixture
def client(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[TestClient]:
    with client_for(api_settings(make_settings, api=ApiSettings(api_keys=KEYS)), embedder) as c:
        yield c


def test_every_route_but_health_depends_on_the_one_auth_check(client: TestClient) -> None:
    routes = _routes(client.app)
    api_routes = [r for r in routes if isinstance(getattr(r, "original_route", r), APIRoute)]
    other = {getattr(r, "path", repr(r)) for r in routes if r not in api_routes}
    assert other == DOCS_ROUTES, f"a route outside FastAPI's APIRoute escapes the auth check: {other - DOCS_ROUTES}"
    guarded = [r for r in api_routes if r.path not in OPEN_API_ROUTES | PAGE_ROUTES]
    assert len(guarded) >= 9
    for route in api_routes:
        assert _depends_on(route.dependant, require_api_key) == (route.path not in OPEN_API_ROUTES | PAGE_ROUTES), \
            route.path

    for route in guarded:
        path = re.sub(r"\{[^}]+\}", "1", route.path)
        for method in sorted(route.methods - {"HEAD", "OPTIONS"}):
            missing = assert_problem(client.request(method, path), 401)
            assert "Authorization: Bearer" in str(missing["fix"]), (method, path)
            near_miss = KEYS[0][:-1] + chr(ord(KEYS[0][-1]) + 1)
            for headers in (bearer(near_miss), bearer(""), {"Authorization": KEYS[0]},
                            {"Authorization": f"Basic {KEYS[0]}"}, {"X-API-Key": KEYS[0]}):
                assert_problem(client.request(method, path, headers=headers), 401)
            ok = client.request(method, path, headers=bearer(KEYS[1]))
            assert ok.status_code != 401 and ok.status_code < 500, (method, path, ok.text)
    for path in sorted(OPEN_API_ROUTES | PAGE_ROUTES):
        assert client.get(path).status_code == 200


# -- uploads with hostile file names --------------------------------------------------------------------
def _multipart(filename: bytes, content: bytes) -> tuple[bytes, dict[str, str]]:
    """Built by hand: httpx would percent-encode control characters, and clients that attack do not."""
    boundary = "kgrag-boundary-7d1f"
    body = (f"--{boundary}\r\n".encode() + b'Content-Disposition: form-data; name="file"; filename="' + filename
            + b'"\r\nContent-Type: text/plain\r\n\r\n' + content + f"\r\n--{boundary}--\r\n".encode())
    return body, {"content-type": f"multipart/form-data; boundary={boundary}"}


HOSTILE_NAMES: list[tuple[bytes, str | None]] = [
    (b"../../etc/passwd.txt", "passwd.txt"),
    (b"/etc/kgrag-absolute.txt", "kgrag-absolute.txt"),
    (b"..\\..\\windows\\win-ini.txt", "win-ini.txt"),
    (b"C:\\Users\\eve\\report.md", "report.md"),
    (b"....//....//dots.txt", "dots.txt"),
    (b"tab\tand\x01ctrl\x1b[31m.txt", "tab andctrl[31m.txt"),
    ("bidi\u202etxt.exe.txt".encode(), "biditxt.exe.txt"),
    (b".hidden.txt", "hidden.txt"),
    (b"../../../", None),  # nothing left: refused
    (b"../../payload.exe", None),  # unsupported type once the path is gone
    (b"....", None),
]


def _files_named(roots: list[Path], names: set[str]) -> set[Path]:
    found: set[Path] = set()
    for root in roots:
        if root.is_dir():
            found |= {p for p in root.rglob("*") if p.name in names}
    return found


def test_upload_file_names_are_sanitised_and_never_touch_the_filesystem(
        client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = {n for _, n in HOSTILE_NAMES if n} | {"payload.exe"}
    # Spooled uploads go to the temp dir: a private one, so another process's files in a shared
    # /tmp (say a "report.md" of its own) can neither fail this test nor hide a write.
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    roots = [tmp_path, Path.cwd(), Path("/etc")]
    before = _files_named(roots, names)
    auth = bearer(KEYS[0])
    stored: dict[str, int] = {}
    for i, (raw, expected) in enumerate(HOSTILE_NAMES):
        body, headers = _multipart(raw, f"Hostile upload number {i} about glass kilns and ferries.".encode())
        r = client.post("/v1/documents", content=body, headers={**headers, **auth})
        if expected is None:
            problem = assert_problem(r, 422)
            assert "unsupported type" in str(problem["detail"]) and problem["fix"], raw
            continue
        assert r.status_code == 201, (raw, r.text)
        doc = r.json()["document"]
        assert doc["source"] == f"upload:{expected}", raw
        assert not any(unicodedata.category(ch).startswith("C") for ch in doc["source"] + doc["title"]), raw
        assert "/" not in doc["source"] and "\\" not in doc["source"] and ".." not in doc["source"]
        stored[doc["source"]] = doc["id"]
    listed = client.get("/v1/documents", headers=auth).json()["documents"]
    assert {d["source"]: d["id"] for d in listed} == stored, "the bad uploads were refused, the rest went in"
    assert _files_named(roots, names) == before, "an upload wrote a file under its client-given name"
    assert not Path("/etc/passwd.txt").exists() and not Path("/etc/kgrag-absolute.txt").exists()


def test_the_same_file_uploaded_at_once_is_stored_once(client: TestClient) -> None:
    auth = bearer(KEYS[0])
    content = b"# Ferry timetable\n\n" + b"The ferry to Vormsi leaves Rohukula at dawn and returns at dusk. " * 40
    barrier = threading.Barrier(6)
    responses: list[httpx.Response] = []

    def upload() -> None:
        barrier.wait()
        responses.append(client.post("/v1/documents", headers=auth,
                                     files={"file": ("ferry.md", content, "text/markdown")}))

    threads = [threading.Thread(target=upload) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(responses) == 6 and all(r.status_code == 201 for r in responses), [r.text for r in responses]
    outcomes = sorted(r.json()["outcome"] for r in responses)
    assert outcomes == ["added"] + ["unchanged"] * 5
    assert len({r.json()["document"]["id"] for r in responses}) == 1
    (doc,) = client.get("/v1/documents", headers=auth).json()["documents"]
    assert doc["source"] == "upload:ferry.md" and doc["chunk_count"] == responses[0].json()["document"]["chunk_count"]
    with psycopg.connect(client.app.state.settings.database.url) as conn:
        positions = conn.execute("SELECT position FROM chunks ORDER BY position").fetchall()
    assert [p for (p,) in positions] == list(range(doc["chunk_count"])), "one copy of each chunk, no duplicates"


# -- injection strings ------------------------------------------------------------------------------------
def _table_counts(url: str) -> dict[str, int]:
    tables = ("documents", "chunks", "corpus_state", "kgrag_meta", "schema_migrations", "kg_entities",
              "kg_mentions", "kg_relations", "kg_processed_chunks")
    with psycopg.connect(url) as conn:
        present = {t for (t,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert set(tables) <= present, f"tables gone: {set(tables) - present}"
        return {t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in tables}


def test_injection_strings_are_data_everywhere(client: TestClient) -> None:
    auth = bearer(KEYS[0])
    url = client.app.state.settings.database.url
    statuses: list[int] = []

    def call(method: str, path: str, **kwargs: Any) -> httpx.Response:
        r = client.request(method, path, headers=auth, **kwargs)
        statuses.append(r.status_code)
        assert r.status_code < 500, (path, kwargs, r.text)
        assert "Traceback" not in r.text and "psycopg" not in r.text
        return r

    base = call("POST", "/v1/documents", json={"text": "The plain kiln fires ordinary glass every morning.",
                                               "title": "Plain kiln", "source": "plain", "metadata": {"team": "ops"}})
    assert base.status_code == 201
    stored: dict[str, int] = {}  # injection string → document id
    for i, s in enumerate(INJECTIONS):
        text = f"Kiln {i} fires glass at {1000 + i} degrees in the workshop."
        r = call("POST", "/v1/documents", json={"text": text, "title": s, "source": s, "metadata": {"team": s, s: "y"}})
        m = call("POST", "/v1/documents", files={"file": ("kiln.txt", f"{text} Uploaded.".encode(), "text/plain")},
                 data={"title": s, "source": f"form:{s}", "metadata": '{"via": "form"}'})
        if "\x00" in s or invisible_char(s):  # NUL cannot be stored; a bidi override must not be shown as a name
            for refused in (r, m):
                problem = assert_problem(refused, 422)
                assert ("NUL" in str(problem["detail"]) or "invisible" in str(problem["detail"])) and problem["fix"]
            continue
        assert r.status_code == 201 and m.status_code == 201, (s, r.text, m.text)
        doc = r.json()["document"]
        assert (doc["source"], doc["title"], doc["metadata"]) == (s, s, {"team": s, s: "y"})
        assert m.json()["document"]["title"] == s and m.json()["document"]["source"] == f"form:{s}"
        stored[s] = doc["id"]
    counts = _table_counts(url)
    assert counts["documents"] == 1 + 2 * len(stored)

    for s in INJECTIONS:
        for answer in (False, True):
            call("POST", "/v1/query", json={"question": f"kiln {s}", "answer": answer})
        call("POST", "/v1/query/stream", json={"question": s})
        by_source = call("POST", "/v1/query", json={"question": "Which kiln fires glass?", "answer": False,
                                                    "filters": {"sources": [s]}})
        by_team = call("POST", "/v1/query", json={"question": "Which kiln fires glass?", "answer": False,
                                                  "filters": {"metadata": {"team": s}}})
        by_key = call("POST", "/v1/query", json={"question": "Which kiln fires glass?", "answer": False,
                                                 "filters": {"metadata": {s: "y"}}})
        for r in (by_source, by_team, by_key):
            if s in stored:
                hits = r.json()["hits"]
                assert hits and {h["document_id"] for h in hits} == {stored[s]}, (s, hits)
            elif "\x00" in s:
                assert_problem(r, 422)
            else:  # never stored (an invisible character): a filter on it matches nothing
                assert r.status_code == 200 and r.json()["hits"] == [], r.text
        for filters in ({"sources": [s + "-absent"]}, {"metadata": {"team": s + "' OR '1'='1"}},
                        {"metadata": {s + "-absent": "y"}}):
            if "\x00" not in s:
                assert call("POST", "/v1/query", json={"question": "kiln", "filters": filters}).json()["hits"] == []
        assert_problem(call("POST", "/v1/query", json={"question": "kiln", "filters": {"document_ids": [s]}}), 422)
        for path in (f"/v1/documents/{quote(s, safe='')}", f"/v1/jobs/{quote(s, safe='')}"):
            assert call("GET", path).status_code in (404, 422)
        call("GET", "/v1/graph/export", params={"format": "json", "entity": s})
        call("GET", "/v1/documents", params={"limit": s, "offset": s})
    id_as_text = call("POST", "/v1/query", json={"question": "kiln", "answer": False,
                                                 "filters": {"document_ids": [str(base.json()["document"]["id"])]}})
    assert {h["document_id"] for h in id_as_text.json()["hits"]} == {base.json()["document"]["id"]}
    assert _table_counts(url) == counts, "a request changed rows it should only have read"
    assert all(s < 500 for s in statuses) and len(statuses) > 150
