"""Fan-out over Ray (the optional ``kgrag[ray]`` extra): a session, actors, results in submission order.

Postgres stays the record of what is done. Ray actors only compute (extract a batch of chunks, embed
a list of texts) and hand the result back; the driver writes each result once, in submission order,
after it arrives. A task Ray retries because its worker died therefore writes nothing twice, a task
that is lost for good stops the run with the batches so far committed, and a build whose driver dies
is resumed by the next build from the processed marks, exactly as with the local executor.

Ray is imported here only, lazily, so the default install (without the extra) never needs it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from kgrag.core.errors import ConfigError, KgragError
from kgrag.core.settings import ExecutorSettings

T = TypeVar("T")

RAY_FIX = "install the extra (pip install 'kgrag[ray]'), or run with --executor local"
PROJECT_PACKAGES = ("core", "kg", "ingest")
"""What Ray workers import of this project: shipped with the job, so every worker runs the driver's code."""
PASSED_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM")
MAX_RESTARTS = 3
"""An actor whose process dies is restarted (and its queued tasks retried) this many times."""
CONNECT_TIMEOUT_S = 5.0
ADDRESS_FIX = ("check --ray-address (KGRAG_EXECUTOR__RAY_ADDRESS): ray://HEAD:10001 for a remote cluster, auto on "
               "one of its nodes; or run with --executor local")


def require_ray() -> ModuleType:
    """The ``ray`` module, or an error naming the extra that provides it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError("--executor ray needs Ray, which is not installed", fix=RAY_FIX) from exc
    return ray


def _package_dirs() -> list[Path]:
    root = Path(__file__).resolve().parent.parent
    return [root / name for name in PROJECT_PACKAGES]


def _shipped_package(folder: Path) -> Path:
    """The ``kgrag`` package Ray ships to its workers: the project folders copied under one ``kgrag``
    folder, as the wheel installs them (in the repository they are separate top-level folders)."""
    package = folder / "kgrag"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for source in _package_dirs():
        shutil.copytree(source, package / source.name, ignore=shutil.ignore_patterns("__pycache__"))
    return package


def code_digest() -> str:
    """A hash of the project's source as this process sees it: workers must run the driver's code."""
    h = hashlib.sha256()
    for package in _package_dirs():
        for path in sorted(package.rglob("*.py")):
            h.update(path.relative_to(package.parent).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


@contextmanager
def ray_session(settings: ExecutorSettings) -> Iterator[ModuleType]:
    """A connected Ray for the duration: a cluster at ``ray_address``, else a local one started (and stopped) here.

    A Ray already initialised by the caller is used as it is and left running, so a script (or a test)
    can keep one session across several builds.
    """
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    staging = Path(tempfile.mkdtemp(prefix="kgrag-ray-"))
    runtime_env = {
        "py_modules": [str(_shipped_package(staging))],
        "env_vars": {name: os.environ[name] for name in PASSED_ENV if name in os.environ},
    }
    if settings.ray_address:
        check_reachable(settings.ray_address)
    try:
        if settings.ray_address:
            ray.init(address=settings.ray_address, runtime_env=runtime_env)
        else:
            ray.init(num_cpus=settings.ray_cpus or None, include_dashboard=False, runtime_env=runtime_env)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError or its own types here
        shutil.rmtree(staging, ignore_errors=True)
        where = f"the Ray cluster at {settings.ray_address!r}" if settings.ray_address else "a local Ray"
        raise KgragError(
            f"cannot start or reach {where} ({type(exc).__name__}: {exc})", fix=ADDRESS_FIX,
        ) from exc
    try:
        yield ray
    finally:
        ray.shutdown()
        shutil.rmtree(staging, ignore_errors=True)


def check_reachable(address: str) -> None:
    """Fail in seconds on a HOST:PORT nobody listens on: Ray itself retries such an address for minutes."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():  # auto, or a form only Ray can judge
        return
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise KgragError(f"cannot reach the Ray cluster at {address!r} ({exc})", fix=ADDRESS_FIX) from exc


class RayWorker:
    """Base of the project's actor classes: lets the driver check the worker's code before using it."""

    def code_digest(self) -> str:
        return code_digest()


def start_actors(ray: ModuleType, cls: type[RayWorker], *args: Any) -> list[Any]:
    """One actor per CPU the cluster has (each takes one), started and checked; raises if any fails to load.

    Each actor loads its model once in ``cls.__init__``; a dead one is restarted and its tasks retried.
    """
    count = max(1, int(ray.cluster_resources().get("CPU", 1)))
    remote = ray.remote(num_cpus=1, max_restarts=MAX_RESTARTS, max_task_retries=MAX_RESTARTS)(cls)
    actors = [remote.remote(*args) for _ in range(count)]
    try:
        digests = _get(ray, [a.code_digest.remote() for a in actors])
    except BaseException:
        stop_actors(ray, actors)
        raise
    mine = code_digest()
    if any(d != mine for d in digests):
        stop_actors(ray, actors)
        raise ConfigError(
            "the Ray workers run different kgrag code than this command",
            fix="install the same kgrag version on every Ray node, or start the cluster without a conflicting "
                "PYTHONPATH (the job ships core/, kg/ and ingest/ to the workers)",
        )
    return actors


def stop_actors(ray: ModuleType, actors: Sequence[Any]) -> None:
    """Free the actors' CPUs (and models) for the next stage of the same session."""
    for actor in actors:
        ray.kill(actor)


def in_order(ray: ModuleType, actors: Sequence[Any], items: Iterable[T],
             submit: Callable[[Callable[[], Any], T], list[Any]], *, per_actor: int = 2
             ) -> Iterator[tuple[T, list[Any]]]:
    """Each item with the results of the tasks ``submit`` started for it, in the order given.

    ``submit(next_actor, item)`` returns the object refs of that item's tasks, each sent to
    ``next_actor()``, which hands out the actors in turn (an item may be split over several).
    At most ``per_actor`` items per actor are in flight: enough to keep every actor busy while the
    driver writes, without reading the whole input ahead of the workers.
    """
    in_flight: deque[tuple[T, list[Any]]] = deque()
    turn = 0

    def next_actor() -> Any:
        nonlocal turn
        turn += 1
        return actors[(turn - 1) % len(actors)]

    for item in items:
        in_flight.append((item, submit(next_actor, item)))
        if len(in_flight) >= per_actor * len(actors):
            item_done, refs = in_flight.popleft()
            yield item_done, _get(ray, refs)
    while in_flight:
        item_done, refs = in_flight.popleft()
        yield item_done, _get(ray, refs)


def _get(ray: ModuleType, refs: list[Any]) -> list[Any]:
    try:
        return ray.get(refs)
    except ray.exceptions.RayError as exc:
        raise KgragError(
            f"a Ray task failed after {MAX_RESTARTS} retries ({type(exc).__name__}: {exc})",
            fix="check the Ray workers' logs and memory, then run the command again: what was written so far "
                "is kept and the rest is resumed (or run with --executor local)",
        ) from exc
