"""The README and docs a newcomer follows: their examples must work on what the repository ships (issue 27)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from kgrag.core.models import Embedder
from kgrag.core.settings import ALLOW_UNKNOWN, Settings, env_example, setting_names
from kgrag.ingest.loaders import SUPPORTED_SUFFIXES, load_file
from pydantic import BaseModel

from tests.conftest import EXAMPLES_DIR, REPO_ROOT
from tests.test_api_query import ingest_examples
from tests.test_api_support import api_settings, client_for


def test_every_readme_filter_example_matches_a_document_in_examples() -> None:
    """`--filter ticker=2330` matched nothing in examples/: the newcomer's query came back empty."""
    metadata = [load_file(p).metadata for p in sorted(EXAMPLES_DIR.iterdir()) if p.suffix in SUPPORTED_SUFFIXES]
    commands = [line.split("#", 1)[0] for line in (REPO_ROOT / "README.md").read_text().splitlines()
                if line.startswith("kgrag ") and "--filter" in line.split("#", 1)[0]]
    assert commands
    for command in commands:
        words = shlex.split(command)
        pairs = [tuple(words[i + 1].split("=", 1)) for i, w in enumerate(words) if w == "--filter"]
        assert any(all(str(m.get(k)) == v for k, v in pairs) for m in metadata), command


def test_env_example_is_generated_from_the_settings_and_names_every_one() -> None:
    """A newcomer's .env starts from this file: it must hold every setting, with today's defaults."""
    committed = (REPO_ROOT / ".env.example").read_text(encoding="utf-8")
    assert committed == env_example(), "regenerate it: python -m kgrag.core.settings > .env.example"
    listed = set(re.findall(r"^# (KGRAG_[A-Z0-9_]+)=", committed, re.MULTILINE))
    groups = {"KGRAG_" + n.upper() for n, f in Settings.model_fields.items()
              if isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel)}
    assert listed == setting_names() - {ALLOW_UNKNOWN} - groups
    assert "# KGRAG_RETRIEVAL__TOP_K=5" in committed and "# KGRAG_HOME=.kgrag" in committed
    assert "# KGRAG_WORKSPACE=default" in committed
    assert not [line for line in committed.splitlines() if line and not line.startswith("#")]  # nothing set


def _section(doc: str, heading: str) -> str:
    return doc.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_chat_curl_example_in_docs_api_works(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    """The chat section had only a Python example; its curl example is run here as written (path and body)."""
    chat = _section((REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8"), "## OpenAI-compatible chat")
    block = re.search(r"```sh\n(curl .*?)\n```", chat, re.DOTALL)
    assert block, "no curl example in the chat section"
    words = shlex.split(block.group(1).split("\n#", 1)[0].replace("\\\n", " "))
    url = next(w for w in words if "/v1/" in w)
    body = json.loads(words[words.index("-d") + 1])
    with client_for(api_settings(make_settings), embedder) as client:
        ingest_examples(client)
        reply = client.post(url[url.index("/v1/"):], json=body)
    assert reply.status_code == 200, reply.text
    out = reply.json()
    assert out["object"] == "chat.completion" and out["model"] == "kgrag"
    assert "Tomas Berg" in out["choices"][0]["message"]["content"] and out["citations"]


def test_screenshots_show_repository_relative_sources() -> None:
    """The README's pictures showed /home/<someone>/…/examples/…: bench/screenshots.py ingests relative names."""
    sys.path.insert(0, str(REPO_ROOT / "bench"))
    try:
        import screenshots
    finally:
        sys.path.remove(str(REPO_ROOT / "bench"))
    docs = screenshots.example_documents()
    assert len(docs) == len([p for p in EXAMPLES_DIR.iterdir() if p.suffix in SUPPORTED_SUFFIXES])
    assert all(d.source.startswith("examples/") and not Path(d.source).is_absolute() for d in docs)
    assert all(str(REPO_ROOT) not in d.source for d in docs)


# -- every command the README's "Using it" and docs/api.md show, run as written on the demo data (issue 46) --------
DOC_KEY = "docs-example-key"
LONG_RUNNING = ("kgrag serve", "kgrag mcp")
"""Servers: they run until stopped. The test starts the same server itself for docs/api.md's curl examples
(test_mcp.py covers `kgrag mcp`)."""


def _readme_commands() -> list[str]:
    """The kgrag lines of the README's "Using it" block, comments dropped."""
    using = (REPO_ROOT / "README.md").read_text(encoding="utf-8").split("\n## Using it\n", 1)[1]
    block = re.search(r"```bash\n(.*?)```", using, re.DOTALL)
    assert block, "no command block under 'Using it'"
    return [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines()
            if line.startswith("kgrag ") and not line.startswith(LONG_RUNNING)]


def _api_blocks(language: str) -> list[str]:
    text = (REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    return [b for b in re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)]


def test_every_readme_and_api_doc_example_runs_on_the_demo_data(tmp_path: Path, fresh_database_url: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer copies the README's commands, then docs/api.md's curl and Python examples, into a shell in the
    clone after `make demo`. They named people not in examples/ (refusals), a report.pdf and a JOB_ID that do not
    exist, and /v1/documents/3 when the examples were 13-24 (404). Each runs here as written: the only edits
    are the server's address and $KEY; every curl must answer 2xx (curl --fail-with-body) and every kgrag
    command exit 0. Files they write land in a copy of the clone's examples' folder, not in the repository."""
    from kgrag.api.app import create_app
    from kgrag.api.cli import app
    from kgrag.core.runtime import Runtime
    from kgrag.core.settings import ApiSettings, DatabaseSettings
    from typer.testing import CliRunner

    sys.path.insert(0, str(REPO_ROOT / "bench"))
    try:
        import soak
    finally:
        sys.path.remove(str(REPO_ROOT / "bench"))
    shutil.copytree(EXAMPLES_DIR, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    env = {"KGRAG_HOME": str(tmp_path / ".kgrag"), "KGRAG_DATABASE__URL": fresh_database_url, "HF_HUB_OFFLINE": "1",
           "COLUMNS": "200"}
    runner = CliRunner()
    commands = _readme_commands()
    assert len(commands) >= 10 and commands[0] == "kgrag ingest examples/"
    for command in commands:
        result = runner.invoke(app, shlex.split(command)[1:], env=env)
        assert result.exit_code == 0, (command, result.output[-2000:])
    assert (tmp_path / "graph.html").stat().st_size > 10_000  # the export, here: not in the clone
    assert runner.invoke(app, ["workspace", "create", "legal"], env=env).exit_code == 0  # docs/api.md's workspace

    settings = Settings(_env_file=None, home=tmp_path / ".kgrag", database=DatabaseSettings(url=fresh_database_url),
                        api=ApiSettings(api_keys=[DOC_KEY]))
    rt = Runtime(settings)
    try:
        with soak.serve_in_thread(create_app(runtime=rt)) as url:
            host = url.removeprefix("http://")
            shell = [b for b in _api_blocks("sh") if "localhost:8000/" in b]
            assert len(shell) >= 9
            for block in shell:
                script = ("set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 120 \"$@\"; }\n"
                          + block.replace("localhost:8000", host))
                run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=tmp_path,
                                     env={**os.environ, "KEY": DOC_KEY}, timeout=600)
                assert run.returncode == 0, (block, run.stdout[-1500:], run.stderr[-1500:])
                if "X-Kgrag-Workspace" not in block:  # the demo data answers them (an empty workspace cannot)
                    assert '"refused"' not in run.stdout and "don't say" not in run.stdout, (block, run.stdout[-1500:])
                if '"Where was he born?"' in block:
                    assert "Kiruna" in run.stdout, run.stdout[-1500:]  # the follow-up answered, not refused
            python = "\n".join(b for b in _api_blocks("python") if "127.0.0.1:8000" in b or "history" in b)
            printed = subprocess.run([sys.executable, "-c", f"KEY = {DOC_KEY!r}\n"
                                      + python.replace("http://127.0.0.1:8000", url)],
                                     capture_output=True, text=True, cwd=tmp_path, timeout=600)
            assert printed.returncode == 0, printed.stderr[-2000:]
            assert "Where was Tomas Berg born?" in printed.stdout, printed.stdout
    finally:
        rt.close()
