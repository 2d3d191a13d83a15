"""A document node is opened by its title in /v1/graph/neighbourhood whatever characters the title holds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from kgrag.core.models import Embedder
from kgrag.core.settings import RetrievalSettings, Settings

from tests.test_api_graph import wait_for
from tests.test_api_support import api_settings, client_for

ODD_TITLES = ["x (y) (z)", "The The", "a — b", "<script>x</script>", "AT&T", "Ærø (island)", "C++ Primer"]
"""Titles whose canonical key is empty, shared with other names, or not the title: the search listed each
document, but opening it by that name was a 404 "no entity named X … try one of [X]"."""


@pytest.fixture(scope="module")
def client(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    from kgrag.core.settings import DatabaseSettings

    from tests.conftest import create_database

    def make(**overrides: object) -> Settings:
        values: dict[str, object] = {"home": tmp_path_factory.mktemp("names"),
                                     "database": DatabaseSettings(url=create_database(pg_server))}
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[arg-type]

    with client_for(api_settings(make, retrieval=RetrievalSettings()), embedder) as c:
        for i, title in enumerate(ODD_TITLES):
            r = c.post("/v1/documents", json={"text": f"Document {i} is about the lighthouse of Tahkuna on "
                                                      f"Hiiumaa and the keeper Jaan Tamm {i}.",
                                              "title": title, "source": f"odd-{i}"})
            assert r.status_code == 201, r.text
        job = wait_for(c, c.post("/v1/graph/build").json()["id"])
        assert job["state"] == "succeeded", job
        yield c


@pytest.mark.parametrize("title", ODD_TITLES)
def test_a_document_node_opens_by_its_odd_title(client: TestClient, title: str) -> None:
    found = client.get("/v1/graph/entities", params={"q": title, "limit": 50}).json()["entities"]
    mine = [e for e in found if e["name"] == title]
    assert mine, (title, found)
    r = client.get("/v1/graph/neighbourhood", params={"entity": title})
    assert r.status_code == 200, (title, r.text)
    assert r.json()["center"] == mine[0]["key"]
    by_key = client.get("/v1/graph/neighbourhood", params={"entity": mine[0]["key"]})
    assert by_key.status_code == 200 and by_key.json()["center"] == mine[0]["key"]
