"""A bounded soak in CI: real uvicorn on 127.0.0.1, concurrent queries and uploads, no errors, flat memory.

The load generator is bench/soak.py; ``python bench/soak.py --minutes 5`` is the long form.
The server runs in this process (on a thread, reusing the session's embedder), so the RSS
measured is this process's: the client threads are in it too, but they hold nothing between
requests, and growth after the warm-up is what a leak in the request path would show.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import pytest
from kgrag.api.app import create_app
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings

from tests.conftest import EXAMPLES_DIR, REPO_ROOT
from tests.test_api_support import api_settings

sys.path.insert(0, str(REPO_ROOT / "bench"))
import soak

SECONDS = float(os.environ.get("KGRAG_TEST_SOAK_SECONDS", 30))
MAX_GROWTH = 100 * 2**20


@pytest.mark.slow
def test_soak_has_no_errors_and_flat_memory(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    rt = Runtime(api_settings(make_settings), embedder=embedder)
    try:
        with soak.serve_in_thread(create_app(runtime=rt)) as url:
            assert url.startswith("http://127.0.0.1:")
            soak.seed(url, EXAMPLES_DIR)
            report = soak.run_load(url, seconds=SECONDS, pid=os.getpid(), warmup_seconds=8, query_threads=3,
                                   upload_threads=1, max_requests=20_000)
        stored = rt.store.list_documents()
    finally:
        rt.close()
    summary = report.summary()
    print(summary)
    assert not report.errors, report.errors[:5]
    assert report.requests["query"] >= 20 and report.requests["upload"] >= 5 and report.requests["stream"] >= 3, summary
    assert report.rss_growth < MAX_GROWTH, summary
    # Uploads cycle over a fixed set of sources: replaced in place, never piling up.
    assert len(stored) <= len(list(EXAMPLES_DIR.iterdir())) + 2 * soak.UPLOAD_SOURCES
