"""The web UI and the API docs are served from packaged files: nothing is fetched from a CDN."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from importlib import resources

import pytest
from kgrag.core.models import Embedder
from kgrag.core.settings import ApiSettings, RerankSettings, Settings
from kgrag.ingest.loaders import SUPPORTED_SUFFIXES

from tests.conftest import REPO_ROOT
from tests.test_api_support import api_settings, client_for

ASSET = re.compile(r"""(?:src|href)\s*=\s*["']([^"'#]+)["']""")
SWAGGER_URL = re.compile(r"""url:\s*['"]([^'"]+)['"]""")


def _assets(html: str) -> list[str]:
    return ASSET.findall(html)


def test_docs_load_only_local_assets_and_they_are_served(make_settings: Callable[..., Settings],
                                                         embedder: Embedder) -> None:
    with client_for(api_settings(make_settings), embedder) as client:
        page = client.get("/docs")
        assert page.status_code == 200
        assets = _assets(page.text)
        assert any(a.endswith("swagger-ui-bundle.js") for a in assets) and any(a.endswith(".css") for a in assets)
        assert "cdn" not in page.text.lower() and "https://" not in page.text
        for url in [*assets, *SWAGGER_URL.findall(page.text)]:
            assert url.startswith("/"), f"/docs loads {url} from elsewhere"
            r = client.get(url)
            assert r.status_code == 200 and r.content, url
        assert client.get("/openapi.json").json()["paths"]["/v1/chat/completions"]
        assert client.get("/redoc").status_code == 404  # FastAPI's CDN-backed ReDoc is off, not blank


def test_ui_is_served_at_root_from_packaged_files(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    settings = api_settings(make_settings, api=ApiSettings(api_keys=["k1"]))
    with client_for(settings, embedder) as client:
        page = client.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assets = _assets(page.text)
        assert "/static/app.js" in assets and "/static/app.css" in assets
        for url in assets:
            assert url.startswith("/") or url.startswith("#"), url
            if url.startswith("/static/"):
                r = client.get(url)
                assert r.status_code == 200 and r.content, url
        bundle = client.get("/static/app.js").text
        assert "Sigma" in bundle or "sigma" in bundle  # the graph renderer is in the bundle, not on a CDN
        assert not re.search(r"""(?:import\(|src=|fetch\()\s*["']https?://""", bundle)
        # The pages hold no data, so they need no key; the API behind them still does.
        assert client.get("/v1/documents").status_code == 401
    static = resources.files("kgrag.api").joinpath("static")
    assert all(static.joinpath(f).is_file() for f in ("index.html", "app.js", "app.css", "vendor/swagger-ui-bundle.js"))
    for name in ("index.html", "app.css", "favicon.svg"):  # the committed bundle was rebuilt after its source changed
        assert static.joinpath(name).read_text() == (REPO_ROOT / "ui" / "src" / name).read_text(), (
            f"api/static/{name} differs from ui/src/{name}: run `make ui`")
    # app.js is minified: it names the hash of the sources it was built from (ui/build.mjs writes it).
    built_from = ("src/main.js", "package-lock.json")
    sources = hashlib.sha256(b"".join((REPO_ROOT / "ui" / f).read_bytes() for f in built_from)).hexdigest()
    assert f"sha256:{sources}" in static.joinpath("app.js").read_text()[:200], (
        "api/static/app.js was not rebuilt from ui/src/main.js: run `make ui`")


def test_capabilities_name_every_upload_format_and_the_query_defaults(make_settings: Callable[..., Settings],
                                                                       embedder: Embedder) -> None:
    """The web UI's file picker and Ask options come from here, so they follow the server's own lists."""
    settings = api_settings(make_settings, api=ApiSettings(api_keys=["k1"]))
    with client_for(settings, embedder) as client:
        assert client.get("/v1/capabilities").status_code == 401
        caps = client.get("/v1/capabilities", headers={"Authorization": "Bearer k1"}).json()
    assert caps["upload_formats"] == SUPPORTED_SUFFIXES
    assert {".docx", ".csv", ".pdf", ".md"} <= set(caps["upload_formats"])
    assert caps["signals"] == ["dense", "bm25", "graph"]
    assert caps["default_signals"] == list(settings.retrieval.signals) == ["dense", "bm25"]
    assert caps["default_top_k"] == settings.retrieval.top_k and caps["max_top_k"] == settings.api.max_top_k
    assert caps["max_upload_bytes"] == settings.api.max_upload_bytes
    assert caps["rerank"] is False and caps["rerank_available"] is False
    assert "KGRAG_RERANK__ENABLED=false" in caps["rerank_problem"]


def test_capabilities_say_the_reranker_cannot_load_before_any_query(make_settings: Callable[..., Settings],
                                                                    embedder: Embedder,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 46: the UI ticked Rerank although no reranker could load; it now learns so up front and shows it off."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    missing = "kgrag-tests/no-such-reranker"
    settings = api_settings(make_settings, rerank=RerankSettings(enabled=True, model=missing))
    with client_for(settings, embedder) as client:
        caps = client.get("/v1/capabilities").json()
    assert caps["rerank"] is True and caps["rerank_available"] is False
    assert missing in caps["rerank_problem"] and "no weights" in caps["rerank_problem"]
    assert "python" not in caps["rerank_problem"]  # the problem; the fix is `kgrag doctor`'s


def test_the_ask_pages_conversation_is_bounded_like_a_chat(make_settings: Callable[..., Settings],
                                                           embedder: Embedder) -> None:
    """/v1/query's `conversation` (the Ask page's earlier turns) obeys the chat limits before any work."""
    settings = api_settings(make_settings, api=ApiSettings(max_messages=3, max_chat_chars=200))
    turns = [{"role": "user", "text": "Who leads Project Heron?"}, {"role": "assistant", "text": "Jonas Meier."}]
    with client_for(settings, embedder) as client:
        many = client.post("/v1/query", json={"question": "Where does he work?", "conversation": turns * 2})
        assert many.status_code == 422 and "KGRAG_API__MAX_MESSAGES" in many.json()["fix"]
        long = client.post("/v1/query", json={"question": "Where does he work?",
                                              "conversation": [{"role": "user", "text": "x" * 300}]})
        assert long.status_code == 422 and "KGRAG_API__MAX_CHAT_CHARS" in long.json()["fix"]
        odd = client.post("/v1/query", json={"question": "Where?", "conversation": [{"role": "system", "text": "x"}]})
        assert odd.status_code == 422
        plain = client.post("/v1/query", json={"question": "Where does he work?", "answer": False})
        assert plain.status_code == 200 and plain.json()["rewrite"] is None
