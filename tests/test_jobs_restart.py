"""A `kgrag serve` killed with -9 in the middle of a graph build must not block the next build.

Its job row still says `running` and its heartbeat is fresh, so the heartbeat rule alone would hold the
build kind for `job_stale_after` seconds. The restarted replica, on the same machine, sees that the
owner process is gone and marks the job lost at startup. Real processes, real Postgres, real HTTP.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg

from tests.conftest import EXAMPLES_DIR, REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
from replicas import free_port, replica_env, wait_job

SLOW_TO_EXPIRE = {"KGRAG_ARTIFACTS__JOB_STALE_AFTER": "3600", "KGRAG_GRAPH__PROCESSES": "1",
                  "KGRAG_ARTIFACTS__BUILD_DELAY": "0",
                  "KGRAG_ARTIFACTS__BACKGROUND_GRAPH_BUILDS": "false"}  # the killed build is the job's, nothing else
"""An hour: only the dead-owner rule can free the job within this test."""
KG_TABLES = ("kg_processed_chunks", "kg_entities", "kg_mentions", "kg_relations")


@contextmanager
def server(home: Path, url: str, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], httpx.Client]]:
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "kgrag", "serve", "--port", str(port), "--log-level",
                                 "warning"], cwd=REPO_ROOT, env=replica_env(home, url, **SLOW_TO_EXPIRE),
                                stdout=out, stderr=subprocess.STDOUT)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120)
    try:
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                if client.get("/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        yield proc, client
    finally:
        client.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_a_restarted_server_marks_its_killed_job_lost_and_builds_again(tmp_path: Path,
                                                                      fresh_database_url: str) -> None:
    url, home = fresh_database_url, tmp_path / "home"
    with server(home, url, tmp_path / "first.log") as (proc, client):
        path = EXAMPLES_DIR / "lumen_robotics.md"
        assert client.post("/v1/documents", files={"file": (path.name, path.read_bytes())}).status_code == 201
        with psycopg.connect(url) as holder, psycopg.connect(url, autocommit=True) as watcher:
            holder.execute(f"LOCK TABLE {', '.join(KG_TABLES)} IN ACCESS EXCLUSIVE MODE")  # the build waits here
            job = client.post("/v1/graph/build").json()
            deadline = time.monotonic() + 120
            while not (client.get(f"/v1/jobs/{job['id']}").json()["state"] == "running" and watcher.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> %s",
                    (holder.info.backend_pid,)).fetchone()[0]):
                assert time.monotonic() < deadline, "the build never started"
                time.sleep(0.2)
            proc.kill()  # kill -9: no shutdown handler runs, the row stays `running`
            proc.wait(timeout=30)
            holder.rollback()
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT state FROM kgrag_jobs WHERE id = %s", (job["id"],)).fetchone() == ("running",)

    with server(home, url, tmp_path / "second.log") as (_, client):
        lost = client.get(f"/v1/jobs/{job['id']}").json()
        assert lost["state"] == "failed", lost
        assert lost["error"]["type"] == "urn:kgrag:problem:job-lost" and "exited" in lost["error"]["detail"], lost
        again = client.post("/v1/graph/build")
        assert again.status_code == 202, again.text
        assert wait_job(client, again.json()["id"], timeout=240)["state"] == "succeeded"


def test_an_owner_is_gone_only_when_its_process_on_this_machine_has_exited() -> None:
    from kgrag.api.jobs import Owner

    me = Owner.this_process()
    assert Owner.parse(str(me)) == me and not me.is_gone(me)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    dead = Owner(me.host, me.machine, child.pid, me.started)
    assert dead.is_gone(me)
    assert Owner(me.host, me.machine, me.pid, "1").is_gone(me), "the pid now belongs to another process"
    assert not Owner("other-host", me.machine, child.pid, me.started).is_gone(me), "another machine: not judged"
    assert not Owner(me.host, "another/pid:[1]", child.pid, me.started).is_gone(me), "another container: not judged"
    assert Owner.parse("host:123:abcdef") is None, "an older kgrag's owner is left to the heartbeat rule"
