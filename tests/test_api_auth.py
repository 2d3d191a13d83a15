"""API keys, request limits, problem details, health probes and CORS."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from kgrag.core.models import Embedder
from kgrag.core.settings import ApiSettings, Settings

from tests.test_api_support import api_settings, client_for

KEYS = ["key-one-0123456789", "key-two-9876543210"]
PROBLEM_FIELDS = {"type", "title", "status", "detail", "fix"}


@pytest.fixture
def client(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[TestClient]:
    settings = api_settings(make_settings, api=ApiSettings(api_keys=KEYS, max_question_chars=200, max_top_k=10,
                                                           max_upload_bytes=2000))
    with client_for(settings, embedder) as c:
        yield c


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def assert_problem(r: httpx.Response, status: int) -> dict[str, object]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert set(body) >= PROBLEM_FIELDS and body["status"] == status and body["fix"]
    assert "Traceback" not in r.text
    return body


def test_missing_and_wrong_keys_are_refused(client: TestClient) -> None:
    for method, path, kwargs in [
        ("POST", "/v1/query", {"json": {"question": "anything"}}),
        ("GET", "/v1/documents", {}),
        ("POST", "/v1/documents", {"json": {"text": "some text", "title": "t"}}),
        ("DELETE", "/v1/documents/1", {}),
        ("POST", "/v1/graph/build", {}),
        ("GET", "/v1/jobs/abc", {}),
    ]:
        missing = assert_problem(client.request(method, path, **kwargs), 401)
        assert "Authorization: Bearer" in str(missing["fix"])
        wrong = assert_problem(client.request(method, path, headers=bearer("key-one-01234567890"), **kwargs), 401)
        assert wrong["detail"] == "the API key is not valid"
    r = client.get("/v1/documents", headers={"Authorization": f"Basic {KEYS[0]}"})
    assert_problem(r, 401)
    assert r.headers["www-authenticate"].startswith("Bearer")


def test_any_configured_key_is_accepted_for_reads_and_writes(client: TestClient) -> None:
    assert client.get("/v1/documents", headers=bearer(KEYS[1])).status_code == 200
    r = client.post("/v1/documents", headers=bearer(KEYS[0]), json={"text": "Some words about kilns.", "title": "k"})
    assert r.status_code == 201
    assert client.delete(f"/v1/documents/{r.json()['document']['id']}", headers=bearer(KEYS[1])).status_code == 200


def test_health_probes_need_no_key(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["ready"] is True
    assert {c["name"] for c in client.get("/readyz", headers=bearer(KEYS[0])).json()["checks"]} == {
        "database", "embedding model"}


def test_readiness_details_need_a_key(client: TestClient) -> None:
    """Without a key /readyz named the data folder (the embedded server's pgdata) and the model."""
    home = str(client.app.state.settings.home.resolve())
    for headers in ({}, bearer("not-a-key"), {"Authorization": "Basic abc"}):
        ready = client.get("/readyz", headers=headers)
        assert ready.status_code == 200 and ready.json() == {"ready": True}, ready.text
    detailed = client.get("/readyz", headers=bearer(KEYS[1])).json()
    assert detailed["ready"] is True and {c["name"] for c in detailed["checks"]} == {"database", "embedding model"}
    assert home not in client.get("/readyz").text


def test_limits(client: TestClient) -> None:
    auth = bearer(KEYS[0])
    body = assert_problem(client.post("/v1/query", headers=auth, json={"question": "x" * 201}), 422)
    assert "over the limit of 200" in str(body["detail"])
    body = assert_problem(client.post("/v1/query", headers=auth, json={"question": "q", "top_k": 11}), 422)
    assert "top_k 11" in str(body["detail"])
    assert_problem(client.post("/v1/query", headers=auth, json={"question": "q", "top_k": 0}), 422)
    big = b"word " * 500  # 2,500 bytes > 2,000
    body = assert_problem(client.post("/v1/documents", headers=auth, files={"file": ("big.txt", big, "text/plain")}),
                          413)
    assert "MAX_UPLOAD_BYTES" in str(body["fix"])
    assert_problem(client.post("/v1/documents", headers=auth, json={"text": big.decode(), "title": "big"}), 413)
    # Far over the limit: refused from Content-Length before the body is read.
    huge = b"x" * (2000 + 1024 * 1024 + 10)
    body = assert_problem(client.post("/v1/documents", headers={**auth, "content-type": "application/json"},
                                      content=huge), 413)
    assert body["type"] == "urn:kgrag:problem:request-too-large"
    # Chunked, with no Content-Length: counted as it arrives and refused once over.
    chunks = (b"y" * 65536 for _ in range(40))
    assert_problem(client.post("/v1/documents", headers={**auth, "content-type": "application/json"},
                               content=chunks), 413)


def test_errors_are_problem_details(client: TestClient) -> None:
    auth = bearer(KEYS[0])
    body = assert_problem(client.get("/v1/documents/999999", headers=auth), 404)
    assert body["type"] == "urn:kgrag:problem:not-found" and body["instance"] == "/v1/documents/999999"
    body = assert_problem(client.post("/v1/query", headers=auth, json={"question": "q", "signals": ["psychic"]}), 422)
    assert body["errors"] and "signals" in str(body["detail"])
    assert_problem(client.get("/v1/nowhere", headers=auth), 404)
    assert_problem(client.put("/v1/documents", headers=auth), 405)
    body = assert_problem(client.get("/v1/jobs/nope", headers=auth), 404)
    assert "POST /v1/graph/build" in str(body["fix"])


def test_unexpected_errors_hide_the_traceback(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    with client_for(api_settings(make_settings), embedder, raise_server_exceptions=False) as c:
        def boom(*args: object, **kwargs: object) -> object:
            raise RuntimeError("secret internal detail")

        c.app.state.resources.pipeline.run = boom  # type: ignore[method-assign]
        r = c.post("/v1/query", json={"question": "anything"})
    body = assert_problem(r, 500)
    assert "secret internal detail" not in r.text and body["type"] == "urn:kgrag:problem:internal"


def test_cors_is_off_unless_configured(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    with client_for(api_settings(make_settings), embedder) as c:
        assert "access-control-allow-origin" not in c.options("/v1/query", headers=preflight).headers
    settings = api_settings(make_settings, api=ApiSettings(cors_origins=["https://app.example"]))
    with client_for(settings, embedder) as c:
        r = c.options("/v1/query", headers=preflight)
        assert r.headers["access-control-allow-origin"] == "https://app.example"


def test_app_owns_its_runtime_when_none_is_given(make_settings: Callable[..., Settings]) -> None:
    from kgrag.api.app import create_app

    app = create_app(api_settings(make_settings))
    with TestClient(app) as c:
        assert c.get("/readyz").json()["ready"] is True
        runtime = app.state.resources.runtime
    assert runtime._db is None, "the lifespan closes the runtime it created"
    with pytest.raises(ValueError):
        create_app(api_settings(make_settings), runtime=runtime)
