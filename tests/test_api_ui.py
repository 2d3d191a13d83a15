"""The web UI and the API docs are served from packaged files: nothing is fetched from a CDN."""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import resources

from kgrag.core.models import Embedder
from kgrag.core.settings import ApiSettings, Settings

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
