"""Background jobs (graph builds) for the API: one worker thread, state kept in this process.

A graph build takes minutes, longer than any HTTP request should, so the request only queues it
and the client polls ``GET /v1/jobs/{id}``. Job state is per process (a restart forgets it); the
graph itself is durable in Postgres, and B's build takes its own lock against concurrent builders.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Literal

from api.problems import problem, problem_for
from core.errors import BuildLockedError, KgragError, NotFoundError

log = logging.getLogger("kgrag.api.jobs")

JobState = Literal["queued", "running", "succeeded", "failed"]
_KEEP = 100


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


class JobRunner:
    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgrag-job")
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    def submit(self, kind: str, work: Callable[[], dict[str, Any]]) -> Job:
        """Queue ``work``; a second job of the same kind while one is active is refused (409)."""
        with self._lock:
            for job in self._jobs.values():
                if job.kind == kind and job.active:
                    raise BuildLockedError(f"a {kind} job is already {job.state} (id {job.id})",
                                           fix=f"poll GET /v1/jobs/{job.id} and start a new one when it ends")
            job = Job(uuid.uuid4().hex, kind, "queued", time.time())
            self._jobs[job.id] = job
            while len(self._jobs) > _KEEP:
                oldest = next(iter(self._jobs))
                if self._jobs[oldest].active:
                    break
                self._jobs.popitem(last=False)
        self._executor.submit(self._run, job.id, work)
        return job

    def _update(self, job_id: str, **changes: Any) -> None:
        with self._lock:
            self._jobs[job_id] = replace(self._jobs[job_id], **changes)

    def _run(self, job_id: str, work: Callable[[], dict[str, Any]]) -> None:
        self._update(job_id, state="running", started_at=time.time())
        try:
            result = work()
        except KgragError as exc:
            self._update(job_id, state="failed", finished_at=time.time(), error=problem_for(exc))
        except Exception as exc:
            log.exception("job %s failed", job_id)
            self._update(job_id, state="failed", finished_at=time.time(),
                         error=problem(500, f"the job failed unexpectedly ({type(exc).__name__})",
                                       fix="see the server log, then retry", kind="internal"))
        else:
            self._update(job_id, state="succeeded", finished_at=time.time(), result=result)

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(f"no job with id {job_id}",
                                fix="job ids come from POST /v1/graph/build; jobs are forgotten when the server "
                                "restarts")
        return job

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
