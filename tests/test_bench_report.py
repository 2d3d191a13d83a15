"""The committed benchmark report is what the harness renders from the committed raw results."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

from tests.conftest import REPO_ROOT


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_harness", REPO_ROOT / "bench" / "harness.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_report_md_is_rendered_from_report_json_and_every_target_is_judged() -> None:
    results = json.loads((REPO_ROOT / "bench" / "REPORT.json").read_text())
    rendered = _harness().render(results)
    assert (REPO_ROOT / "bench" / "REPORT.md").read_text() == rendered, \
        "bench/REPORT.md was edited or is stale: python bench/harness.py --render bench/REPORT.json --report"
    for target in ("graph build at 100k", "three-signal retrieval + fusion", "serving RSS at 100000"):
        assert target in rendered
