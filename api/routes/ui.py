"""The web UI at ``/`` and the API docs at ``/docs``, both from files packaged with kgrag.

Nothing here loads from a CDN: Swagger UI and the UI's bundle (sigma.js, graphology) are built
once from npm (ui/, `npm run build`) and committed under api/static/, so a fresh install works
offline with no build step. The pages are public (they hold no data); every /v1 call they make
carries the key the user enters, as any other client's would.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC_PREFIX = "/static"

router = APIRouter(include_in_schema=False)


def static_dir() -> str:
    return str(resources.files("kgrag.api").joinpath("static"))


@router.get("/")
def index() -> FileResponse:
    return FileResponse(f"{static_dir()}/index.html", headers={"Cache-Control": "no-cache"})


@router.get("/docs")
def docs() -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url="/openapi.json", title="kgrag API",
        swagger_js_url=f"{STATIC_PREFIX}/vendor/swagger-ui-bundle.js",
        swagger_css_url=f"{STATIC_PREFIX}/vendor/swagger-ui.css",
        swagger_favicon_url=f"{STATIC_PREFIX}/favicon.svg",
    )


def install(app: FastAPI) -> None:
    """Call with ``create_app``'s FastAPI(docs_url=None, redoc_url=None): the CDN-backed defaults stay off."""
    app.include_router(router)
    app.mount(STATIC_PREFIX, StaticFiles(directory=static_dir()), name="static")
