"""Small things a new user meets first: help text, list settings written the CLI's way, packaging."""

from __future__ import annotations

import itertools
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from kgrag.api.cli import app
from kgrag.core.settings import Settings
from typer.testing import CliRunner


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Typer's command tree (its own click fork: walked by attribute, not by click's classes)."""
    yield path, group
    if isinstance(getattr(group, "commands", None), dict):
        for name, sub in group.commands.items():
            yield from _commands(sub, (*path, name))


def test_every_bracketed_word_in_help_text_reaches_the_screen() -> None:
    """Help is rendered as Rich markup, where an unescaped [n] is a tag and vanishes ("citing … as .")."""
    runner = CliRunner()
    checked = 0
    for path, cmd in _commands(typer.main.get_command(app)):
        texts = [cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params]
        expected = {f"[{m}]" for t in texts for m in re.findall(r"\\?\[([^\]\s/]+)\]", t)}
        if not expected:
            continue
        out = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert out.exit_code == 0, out.output
        for token in expected:
            assert token in out.output, f"`kgrag {' '.join(path)} --help` lost {token}"
        checked += 1
    assert checked >= 1  # `kgrag ask` explains its [n] citations


def test_ask_help_shows_the_citation_marker() -> None:
    out = CliRunner().invoke(app, ["ask", "--help"], env={"COLUMNS": "200"})
    assert "citing the passages it rests on as [n]." in out.output


@pytest.mark.parametrize(("raw", "expected"), [
    ("dense,bm25", ("dense", "bm25")),
    (" bm25 , graph ", ("bm25", "graph")),
    ('["dense","graph"]', ("dense", "graph")),
    ("dense", ("dense",)),
])
def test_signals_setting_takes_the_clis_comma_syntax_and_json(
        raw: str, expected: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGRAG_RETRIEVAL__SIGNALS", raw)
    assert Settings(_env_file=None).retrieval.signals == expected


def test_a_bad_list_setting_is_one_error_line_with_the_fix(tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"KGRAG_HOME": str(tmp_path), "COLUMNS": "200"}
    bad_signal = runner.invoke(app, ["documents", "list"], env={**env, "KGRAG_RETRIEVAL__SIGNALS": "dense,vector"})
    assert bad_signal.exit_code == 2
    assert "subset of dense,bm25,graph" in bad_signal.output and "Traceback" not in bad_signal.output
    bad_json = runner.invoke(app, ["documents", "list"], env={**env, "KGRAG_API__API_KEYS": "abc"})
    assert bad_json.exit_code == 2, bad_json.output
    assert bad_json.exception is None or isinstance(bad_json.exception, SystemExit)
    assert "invalid configuration" in bad_json.output and "fix:" in bad_json.output


def test_a_misspelt_setting_is_refused_with_the_closest_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A typo in a KGRAG_* name used to be ignored silently (the default applied); now nothing starts."""
    runner = CliRunner()
    env = {"KGRAG_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    typo = runner.invoke(app, ["documents", "list"], env={**env, "KGRAG_RETREIVAL__TOP_K": "2"})
    assert typo.exit_code == 2, typo.output
    assert "KGRAG_RETREIVAL__TOP_K" in typo.output and "did you mean KGRAG_RETRIEVAL__TOP_K?" in typo.output
    assert not (tmp_path / "home").exists()  # refused before a database was created
    field = runner.invoke(app, ["documents", "list"], env={**env, "KGRAG_RETRIEVAL__TOPK": "2"})
    assert field.exit_code == 2 and "did you mean KGRAG_RETRIEVAL__TOP_K?" in field.output
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("KGRAG_GRAPH__HOP_EVIDENCE_WEIGTH=0\n")
    dotenv = runner.invoke(app, ["documents", "list"], env=env)
    assert dotenv.exit_code == 2 and ".env" in dotenv.output and "KGRAG_GRAPH__HOP_EVIDENCE_WEIGHT" in dotenv.output
    allowed = runner.invoke(app, ["documents", "list"], env={**env, "KGRAG_ALLOW_UNKNOWN_SETTINGS": "1"})
    assert "unknown setting" not in allowed.output


def _help_prose(output: str) -> list[list[str]]:
    """The description paragraphs of a rendered --help (above the boxes), as lists of their lines, examples left
    out (they are kept as written)."""
    text = output.split("╭", 1)[0]
    lines = [line.strip() for line in text.splitlines()[2:]]  # after "Usage: …"
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line:
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    return [p for p in paragraphs if p and not p[0].startswith("Example")]


def test_help_wraps_prose_once_at_the_terminal_width_and_shows_no_bool_metavar() -> None:
    """Typer kept the docstring's line breaks and wrapped them again: "…atomically, and a file" / "that cannot…"
    at 80 columns. A line of a paragraph now ends only where the next word would not have fitted."""
    runner, width, checked = CliRunner(), 80, 0
    for path, _cmd in _commands(typer.main.get_command(app)):
        out = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(width)})
        assert out.exit_code == 0, out.output
        assert "<bool>" not in out.output, f"`kgrag {' '.join(path)} --help` shows <bool>"
        for paragraph in _help_prose(out.output):
            for line, nxt in itertools.pairwise(paragraph):
                first_word = nxt.split()[0]
                assert len(line) + 1 + len(first_word) > width - 4, (path, line, nxt)  # 4: Rich's padding
                checked += 1
    assert checked > 10


def test_ask_and_serve_help_name_the_openai_compatible_backend() -> None:
    for command in ("ask", "serve"):
        out = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        flat = " ".join(out.output.split())
        assert "OpenAI-compatible" in flat and "KGRAG_ANSWER__OPENAI_MODEL" in flat, command


def test_serve_refuses_a_taken_port_before_announcing_its_url(tmp_path: Path) -> None:
    """`kgrag serve` printed "web UI at http://…" and only then failed to bind: the URL showed another server."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        out = CliRunner().invoke(app, ["serve", "--port", str(port)],
                                 env={"KGRAG_HOME": str(tmp_path / "home"), "COLUMNS": "200"})
    flat = " ".join(out.output.split())
    assert out.exit_code == 1, out.output
    assert f"cannot listen on 127.0.0.1:{port}" in flat and f"kgrag serve --port {port + 1}" in flat
    assert "web UI at" not in flat
    assert not (tmp_path / "home").exists()  # refused before a database was started
