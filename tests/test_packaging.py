"""The installed distribution: one top-level name (``kgrag``), every package and data file, and a CLI that
works beside another distribution's top-level ``core`` package (the collision a flat install would cause)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGE_FOLDERS = ("kgrag", "core", "ingest", "kg", "retrieval", "api", "eval")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel built from a copy of the sources (no build leftovers in the checkout), and the build's log."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO_ROOT / name, src / name)
    for pkg in PACKAGE_FOLDERS:
        shutil.copytree(REPO_ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__", "results"))
    build = subprocess.run(
        [sys.executable, "-W", "always", "-c",
         "import sys; from setuptools import build_meta as b; print(b.build_wheel(sys.argv[1]))", str(tmp)],
        cwd=src, capture_output=True, text=True, timeout=120,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    return tmp / build.stdout.strip().splitlines()[-1], build.stdout + build.stderr


def test_the_wheel_installs_one_top_level_name_and_carries_every_package(wheel: tuple[Path, str]) -> None:
    """A wheel missing retrieval/answer or the graph view's HTML installs, then fails at run time; one with a
    top-level ``core`` or ``api`` breaks (or is broken by) any other distribution of that name."""
    path, log = wheel
    for warning in ("SetuptoolsDeprecationWarning", "is absent from the `packages` configuration"):
        assert warning not in log, log[-3000:]
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        meta = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = zf.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert {n.split("/", 1)[0] for n in names} == {"kgrag", path.name.split("-")[0] + "-0.1.0.dist-info"}
    assert {"kgrag/api/static/app.js", "kgrag/retrieval/answer/base.py", "kgrag/api/cli/__init__.py",
            "kgrag/api/cli/query.py", "kgrag/api/routes/query.py", "kgrag/__main__.py",
            "kgrag/kg/graphfile.py"} <= names
    assert "kgrag = kgrag.api.cli:main" in entry_points
    assert "License-Expression: MIT" in meta


def test_no_module_imports_a_bare_top_level_package() -> None:
    """Inside the repository ``import core`` would still resolve (the folder is there); installed it would
    not, or would find another distribution's ``core``. Every import names ``kgrag.``."""
    import re

    bare = re.compile(r"^\s*(from|import) (core|ingest|kg|retrieval|api|eval)(\.|\s|$)", re.M)
    offenders = [
        f"{path.relative_to(REPO_ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
        for folder in (*PACKAGE_FOLDERS, "tests", "bench")
        for path in sorted((REPO_ROOT / folder).rglob("*.py"))
        for text in [path.read_text()]
        for m in bare.finditer(text)
    ]
    assert offenders == []


@pytest.mark.slow
def test_installed_wheel_runs_beside_another_distributions_core_package(
    wheel: tuple[Path, str], tmp_path: Path
) -> None:
    """A fresh venv holding the wheel and a dummy distribution that ships a top-level ``core``: kgrag's CLI
    answers a query there, and the dummy ``core`` is still the one ``import core`` finds."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # kgrag's dependencies (torch, spaCy, ...) come from this test's environment, appended after the venv's own
    # site-packages: only a directory is added, so this environment's own kgrag (editable) is not installed.
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    dummy = site / "core"
    dummy.mkdir()
    (dummy / "__init__.py").write_text('WHO = "dummy-core"\n')
    dist_info = site / "dummy_core-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: dummy-core\nVersion: 1.0\n")
    (dist_info / "top_level.txt").write_text("core\n")
    (dist_info / "RECORD").write_text("")
    install = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel[0])],
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr[-2000:]

    home = tmp_path / "home"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kelpie.md").write_text("# Kelpie\n\nThe research vessel Kelpie was built by the Aalborg shipyard.\n")
    env = {**os.environ, "KGRAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": "", "COLUMNS": "400"}  # a long temporary path must not wrap in the CLI's output
    kgrag = str(venv / "bin" / "kgrag")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    assert run(kgrag, "--help").returncode == 0
    where = run(str(py), "-c", "import core, kgrag.core.settings as s; print(core.WHO); print(s.__file__)")
    assert where.returncode == 0, where.stderr[-2000:]
    who, settings_file = where.stdout.split()
    assert who == "dummy-core" and settings_file.startswith(str(site))
    ingest = run(kgrag, "ingest", str(docs))
    assert ingest.returncode == 0, ingest.stdout[-2000:] + ingest.stderr[-2000:]
    query = run(str(py), "-m", "kgrag", "query", "Which shipyard built the Kelpie?", "--signals", "dense,bm25")
    assert query.returncode == 0, query.stdout[-2000:] + query.stderr[-2000:]
    assert "kelpie.md" in query.stdout
