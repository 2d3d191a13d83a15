"""The README and docs a newcomer follows: their examples must work on what the repository ships (issue 27)."""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

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
