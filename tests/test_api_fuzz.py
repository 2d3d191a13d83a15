"""Schemathesis fuzzes every operation of the app's own OpenAPI spec in-process: no input gives a 5xx.

The real app (real Postgres, the session's embedder, the extractive answerer) answers through
FastAPI's full stack; schemathesis drives it through ASGI and starts its lifespan once. Each
operation gets schema-valid (positive) and schema-violating (negative) cases. CI runs a bounded,
derandomised form; ``KGRAG_TEST_FUZZ_EXAMPLES=500 pytest tests/test_api_fuzz.py`` is the long, random one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis

# from_asgi imports this lazily, and pytest rewrites a plugin's modules with ast as they are imported.
# CPython 3.11.7's ast keeps one recursion counter for all threads, so a rewrite while another thread
# uses ast failed once in CI ("AST constructor recursion depth mismatch"): import it here, at collection,
# before any test has started a thread.
import schemathesis.specs.openapi.schemas
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from kgrag.api.app import create_app
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings
from kgrag.ingest.pipeline import Ingestor
from schemathesis import GenerationMode
from schemathesis.python import asgi as st_asgi

from tests.conftest import EXAMPLES_DIR
from tests.test_api_support import api_settings

seconds: dict[str, float] = {}
EXAMPLES_ENV = os.environ.get("KGRAG_TEST_FUZZ_EXAMPLES")
MAX_EXAMPLES = int(EXAMPLES_ENV or 25)
"""Per operation and generation mode."""


def _problem_or_success(response: Any, label: str) -> None:
    status = response.status_code
    assert status < 500, f"{label} answered {status}: {response.text[:500]}"
    assert "Traceback" not in response.text
    if status >= 400:
        content_type = response.headers.get("content-type") or [""]  # schemathesis keeps every header's values
        assert content_type[0] == "application/problem+json", (label, status, response.text[:200])
        body = response.json()
        assert body["status"] == status and body["detail"], (label, body)


@pytest.mark.slow
def test_no_operation_answers_5xx(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    rt = Runtime(api_settings(make_settings), embedder=embedder)
    try:
        report = Ingestor.from_runtime(rt).ingest_paths([EXAMPLES_DIR])
        assert report.added and not report.failed
        app = create_app(runtime=rt)
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        operations = [result.ok() for result in schema.get_all_operations()]
        labels = {op.label for op in operations}
        assert {"POST /v1/query", "POST /v1/documents", "GET /v1/graph/export"} <= labels, labels
        calls: dict[str, int] = {}
        try:
            for operation in operations:
                for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                    _fuzz(operation, mode, calls)
        finally:
            st_asgi.shutdown_lifespans()
    finally:
        rt.close()
    # Every operation was really exercised (a strategy that generates nothing proves nothing); only those
    # with no input at all (the health probes) have nothing to make invalid.
    assert {key.rsplit(" [", 1)[0] for key in calls if key.endswith("[positive]")} == labels
    unfuzzed = labels - {key.rsplit(" [", 1)[0] for key in calls if key.endswith("[negative]")}
    assert unfuzzed == {"GET /healthz", "GET /readyz"}, unfuzzed
    print({k: round(v, 1) for k, v in seconds.items()})
    print(f"fuzzed {len(operations)} operations, {sum(calls.values())} requests: {calls}")


def _fuzz(operation: Any, mode: GenerationMode, calls: dict[str, int]) -> None:
    key = f"{operation.label} [{mode.value}]"

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, derandomize=EXAMPLES_ENV is None,
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        t0 = time.perf_counter()
        response = case.call()
        calls[key] = calls.get(key, 0) + 1
        seconds[key] = seconds.get(key, 0.0) + time.perf_counter() - t0
        _problem_or_success(response, key)

    try:
        run()
    except Unsatisfiable:
        if mode is GenerationMode.POSITIVE or calls.get(key):
            raise
