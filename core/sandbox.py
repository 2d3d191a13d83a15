"""Untrusted files are parsed in worker processes with an address-space limit, never in the server.

A few hundred bytes can ask a parser for gigabytes: a YAML alias chain, a .docx whose XML repeats one
element a hundred million times, an XML entity expansion. The loaders refuse the shapes they know
before parsing (ingest/loaders.py), but a parser bug or a bomb of a new shape must still not take the
serving process, its queries and its other uploads down with it. So every parse runs in a worker
process whose address space is capped (``RLIMIT_AS``) a fixed budget above what it holds once started,
and whose time is capped by the caller's wait: a worker that runs out of memory gets a MemoryError
(reported, then the worker is replaced); one that overruns or dies is killed and replaced. The server
only ever sees a per-file error naming the limit.

Why processes and not a separate ingest service: the isolation is the same (the kernel enforces the
limit on a process either way), while a worker needs no second deployment, queue or port, and every
`kgrag serve` replica and `kgrag ingest` gets it as is. Workers are forked from multiprocessing's
fork server, a small single-threaded process that imported the parsers once, so a new worker costs
milliseconds and never inherits the server's threads or models.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from kgrag.core.errors import IngestError, KgragError

T = TypeVar("T")
log = logging.getLogger(__name__)

MEMORY_SETTING = "KGRAG_INGEST__PARSER_MEMORY_BYTES"
TIMEOUT_SETTING = "KGRAG_INGEST__PARSER_TIMEOUT_S"


def _address_space() -> int:
    """This process's mapped virtual memory (Linux), the base the limit is set above."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[0])
    import resource

    return pages * resource.getpagesize()


def _limit_memory(budget: int) -> None:
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = _address_space() + budget
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError) as exc:  # not Linux: the time limit still holds
        log.warning("the parser's memory limit could not be set (%s); only its time limit applies", exc)


def _serve(conn: Connection, budget: int, preload: tuple[str, ...]) -> None:
    """A worker's loop: one call at a time, its result or its error sent back; exits when the pipe closes."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it closes us
    for name in preload:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    _limit_memory(budget)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        fn, args, kwargs = message
        result: tuple[str, Any]
        try:
            result = ("ok", fn(*args, **kwargs))
        except MemoryError:
            result = ("memory", None)
        except KgragError as exc:
            result = ("error", (type(exc).__name__, exc.message, exc.fix))
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}"
            kind = "memory" if "memory" in text.lower() and "alloc" in text.lower() else "failed"
            result = (kind, text[:500])
        try:
            conn.send(result)
        except MemoryError:
            conn.send(("memory", None))
        if result[0] == "memory":
            return  # a process that ran out of memory may be in any state: the parent starts a fresh one


class _Worker:
    def __init__(self, ctx: Any, budget: int, preload: tuple[str, ...]) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, budget, preload), name="kgrag-parser", daemon=True)
        self.process.start()
        child.close()

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
             timeout: float) -> tuple[str, Any]:
        self.conn.send((fn, args, kwargs))
        if not self.conn.poll(timeout):
            raise TimeoutError
        return self.conn.recv()  # EOFError: the worker died (killed by the kernel, a crash in C code)

    def stop(self, *, kill: bool = False) -> None:
        try:
            if not kill:
                self.conn.send(None)
        except OSError:
            pass
        else:
            self.process.join(2)
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


class Sandbox:
    """Runs module-level functions in memory- and time-limited worker processes, ``processes`` at a time.

    Made once per process (core.runtime.Runtime.sandbox) and closed with it. ``run`` raises the function's
    own KgragError, or an IngestError naming the limit the call ran into."""

    def __init__(self, *, memory_bytes: int, timeout_s: float, processes: int = 2,
                 preload: tuple[str, ...] = ()) -> None:
        self.memory_bytes = memory_bytes
        self.timeout_s = timeout_s
        self.preload = preload
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(list(preload))
        self._slots = threading.BoundedSemaphore(processes)
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._closed = False

    def run(self, fn: Callable[..., T], *args: Any, label: str = "the input", **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a worker; ``label`` names the input in errors (e.g. its source)."""
        with self._slots:
            worker = self._take()
            try:
                kind, value = worker.call(fn, args, kwargs, self.timeout_s)
            except TimeoutError:
                worker.stop(kill=True)
                raise IngestError(f"{label} took longer than the parser's limit of {self.timeout_s:g} s",
                                  fix=f"split or simplify the file, or raise {TIMEOUT_SETTING}") from None
            except (EOFError, OSError) as exc:
                worker.stop(kill=True)
                log.warning("the parser process died reading %s (exit code %s)", label, worker.process.exitcode)
                raise IngestError(f"{label} made the parser process die (exit code {worker.process.exitcode})",
                                  fix="check the file opens in its usual program; re-save or convert it") from exc
            if kind == "memory":
                worker.stop(kill=True)
                raise IngestError(f"{label} needs more memory to parse than the parser's limit of "
                                  f"{self.memory_bytes // 2**20} MiB (a decompression or expansion bomb?)",
                                  fix=f"check the file; if it is genuine, raise {MEMORY_SETTING}")
            self._give_back(worker)
        if kind == "ok":
            return value  # type: ignore[no-any-return]
        if kind == "error":
            name, message, fix = value
            error = IngestError(message, fix=fix)
            error.__notes__ = [f"raised in the parser process as {name}"]
            raise error
        log.warning("the parser failed on %s: %s", label, value)
        raise IngestError(f"{label} could not be parsed ({str(value).split(':', 1)[0]})",
                          fix="check the file opens in its usual program; re-save or convert it")

    def _take(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise KgragError("the parser is shut down", fix="the service is stopping; retry on another instance")
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    return worker
                worker.stop(kill=True)
        return _Worker(self._ctx, self.memory_bytes, self.preload)

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            if not self._closed:
                self._idle.append(worker)
                return
        worker.stop()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()
