"""Background jobs (graph builds) for the API, recorded in Postgres so every replica can report them.

A graph build takes minutes, longer than any HTTP request should, so the request only queues it
and the client polls ``GET /v1/jobs/{id}``, on any replica: the job's state lives in ``kgrag_jobs``,
not in this process. The replica that accepted the job runs it on its one job thread and beats a
heartbeat while it does; a job whose replica died (kill -9, a lost host) stops beating and is
reported failed after ``artifacts.job_stale_after`` seconds, which also frees its kind for a new
job. What the job committed is kept (a graph build's batches are idempotent; see kg/store.py).

Why not a job library such as procrastinate: kgrag has one job kind whose mutual exclusion is
already a Postgres advisory lock, and what it needs from a queue is a row per job that any replica
can read, a result, and a dead-runner rule. procrastinate stores no results, brings its own schema
outside these migrations and an asyncio worker loop; a table and a heartbeat are the smaller part.

A job records its owner (``Owner``: host, boot id and pid namespace, pid, process start time), so a
replica on the same machine, such as the one restarted after a kill -9, can tell at once that the
owner is gone and mark its jobs lost (at startup, and whenever it reads or submits a job) instead of
waiting ``job_stale_after`` seconds for the heartbeat to go quiet. An owner on another machine, or in
another pid namespace (another container), cannot be checked from here: the heartbeat rule covers it.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import psycopg
from kgrag.api.problems import problem, problem_for
from kgrag.core.db import Database
from kgrag.core.errors import BuildLockedError, KgragError, NotFoundError
from kgrag.core.priority import BUILD_NICE, lower_this_thread
from psycopg.types.json import Jsonb

log = logging.getLogger("kgrag.api.jobs")

JobState = Literal["queued", "running", "succeeded", "failed"]
_KEEP_DAYS = 30
_JOB_ID = re.compile(r"[0-9a-z]{1,64}")
HEARTBEAT_S = 5.0


@dataclass(frozen=True, slots=True)
class Owner:
    """The process that runs a job, as recorded in ``kgrag_jobs.owner``."""

    host: str
    machine: str
    """Boot id and pid namespace: pids are only comparable between processes that share both ("" when
    unknown, e.g. not Linux: such an owner is never judged dead from here)."""
    pid: int
    started: str
    """The process's start time in clock ticks since boot: a pid reused by a later process differs."""

    def __str__(self) -> str:
        return f"{self.host}|{self.machine}|{self.pid}|{self.started}"

    @classmethod
    def parse(cls, text: str) -> Owner | None:
        """None for anything else (an owner recorded by an older kgrag as host:pid:nonce)."""
        parts = text.split("|")
        if len(parts) != 4 or not parts[2].isdigit():
            return None
        return cls(parts[0], parts[1], int(parts[2]), parts[3])

    @classmethod
    def this_process(cls) -> Owner:
        pid = os.getpid()
        return cls(socket.gethostname(), _machine(), pid, _process_start(pid) or "")

    def is_gone(self, observer: Owner) -> bool:
        """True only when ``observer`` shares this owner's machine and pid namespace and the process has
        exited (or its pid now belongs to a later process)."""
        if not self.machine or (self.host, self.machine) != (observer.host, observer.machine):
            return False
        return _process_start(self.pid) != self.started


def _machine() -> str:
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""
    return f"{boot}/{namespace}"


def _process_start(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat (after the parenthesised command name, which may hold spaces)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    kind: str
    state: JobState
    created_at: float
    started_at: float | None = None
    finished_at: float | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")


_SELECT = ("SELECT id, kind, state, created_at, started_at, finished_at, result, error FROM kgrag_jobs")


def _job(row: Any) -> Job:
    def ts(value: datetime | None) -> float | None:
        return value.timestamp() if value is not None else None

    return Job(row[0], row[1], row[2], ts(row[3]) or 0.0, ts(row[4]), ts(row[5]), row[6], row[7])


class JobRunner:
    """Runs this replica's jobs on one thread; reads and writes their state in Postgres."""

    def __init__(self, db: Database, *, stale_after: float = 60.0) -> None:
        self.db = db
        self.stale_after = stale_after
        self.identity = Owner.this_process()
        self.owner = str(self.identity)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgrag-job")
        self._running: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._heart = threading.Thread(target=self._beat, name="kgrag-job-heartbeat", daemon=True)
        self._heart.start()
        try:  # a restart after a kill -9: the jobs the previous process on this machine left are lost now
            self._expire_dead()
        except KgragError as exc:
            log.warning("could not check for jobs lost by a previous process: %s", exc)

    def submit(self, kind: str, work: Callable[[], dict[str, Any]]) -> Job:
        """Queue ``work``; a second job of the same kind while one is active anywhere is refused (409)."""
        self._expire_dead()
        job_id = uuid.uuid4().hex
        try:
            with self.db.transaction() as conn:
                row = conn.execute(
                    "INSERT INTO kgrag_jobs (id, kind, state, owner) VALUES (%s, %s, 'queued', %s)"
                    " RETURNING id, kind, state, created_at, started_at, finished_at, result, error",
                    (job_id, kind, self.owner)).fetchone()
                conn.execute("DELETE FROM kgrag_jobs WHERE created_at < now() - make_interval(days => %s)"
                             " AND state IN ('succeeded', 'failed')", (_KEEP_DAYS,))
        except psycopg.errors.UniqueViolation:
            active = self._active(kind)
            where = f" (id {active.id})" if active else ""
            raise BuildLockedError(
                f"a {kind} job is already {active.state if active else 'active'}{where}",
                fix=f"poll GET /v1/jobs/{active.id if active else '{id}'} and start a new one when it ends") from None
        with self._lock:
            self._running.add(job_id)
        self._executor.submit(self._run, job_id, work)
        return _job(row)

    def get(self, job_id: str) -> Job:
        row = None
        if _JOB_ID.fullmatch(job_id):  # anything else names no job (and NUL cannot reach a text column)
            self._expire_dead()
            with self.db.connection() as conn:
                row = conn.execute(_SELECT + " WHERE id = %s", (job_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no job with id {job_id}",
                                fix="job ids come from POST /v1/graph/build; finished jobs are kept for "
                                f"{_KEEP_DAYS} days")
        return _job(row)

    def close(self) -> None:
        self._stop.set()
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._heart.join(timeout=10)

    # -- internals ----------------------------------------------------------------------------------
    def _active(self, kind: str) -> Job | None:
        with self.db.connection() as conn:
            row = conn.execute(_SELECT + " WHERE kind = %s AND state IN ('queued', 'running')", (kind,)).fetchone()
        return _job(row) if row else None

    def _set(self, job_id: str, state: JobState, **columns: Any) -> None:
        sets = ["state = %s", "heartbeat_at = now()"]
        values: list[Any] = [state]
        for column, value in columns.items():
            if value == "now":
                sets.append(f"{column} = now()")
            else:
                sets.append(f"{column} = %s")
                values.append(Jsonb(value))
        with self.db.transaction() as conn:
            conn.execute(f"UPDATE kgrag_jobs SET {', '.join(sets)} WHERE id = %s", (*values, job_id))

    def _run(self, job_id: str, work: Callable[[], dict[str, Any]]) -> None:
        lower_this_thread(BUILD_NICE)  # a build shares the replica's cores with its queries
        try:
            self._set(job_id, "running", started_at="now")
            try:
                result = work()
            except KgragError as exc:
                self._set(job_id, "failed", finished_at="now", error=problem_for(exc))
            except Exception as exc:
                log.exception("job %s failed", job_id)
                self._set(job_id, "failed", finished_at="now",
                          error=problem(500, f"the job failed unexpectedly ({type(exc).__name__})",
                                        fix="see the server log, then retry", kind="internal"))
            else:
                self._set(job_id, "succeeded", finished_at="now", result=result)
        except KgragError as exc:  # the database went away: the heartbeat stops and readers see it failed
            log.error("could not record job %s's state: %s", job_id, exc)
        finally:
            with self._lock:
                self._running.discard(job_id)

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            with self._lock:
                ids = list(self._running)
            if not ids:
                continue
            try:
                with self.db.transaction() as conn:
                    conn.execute("UPDATE kgrag_jobs SET heartbeat_at = now() WHERE id = ANY(%s)"
                                 " AND state IN ('queued', 'running')", (ids,))
            except KgragError as exc:
                log.warning("job heartbeat failed: %s", exc)

    def _expire_dead(self) -> None:
        """Jobs whose replica is gone: failed, with why (so their kind can run again). Gone means its
        process has exited, where this process can see that (same machine), else silent for
        ``stale_after`` seconds."""
        fix = "start the build again (POST /v1/graph/build); the batches it committed are kept"
        error = problem(500, "the replica running this job stopped before it finished", fix=fix, kind="job-lost")
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE kgrag_jobs SET state = 'failed', finished_at = now(), error = %s"
                " WHERE state IN ('queued', 'running') AND heartbeat_at < now() - make_interval(secs => %s)",
                (Jsonb(error), self.stale_after))
            active = conn.execute("SELECT id, owner FROM kgrag_jobs WHERE state IN ('queued', 'running')").fetchall()
            for job_id, text in active:
                owner = Owner.parse(text)
                if owner is not None and owner.is_gone(self.identity):
                    exited = problem(500, f"the replica running this job (process {owner.pid} on {owner.host}) "
                                     "exited before it finished", fix=fix, kind="job-lost")
                    conn.execute("UPDATE kgrag_jobs SET state = 'failed', finished_at = now(), error = %s"
                                 " WHERE id = %s AND state IN ('queued', 'running')", (Jsonb(exited), job_id))
