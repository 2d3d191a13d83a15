"""A serving replica's link to the published artifacts: it loads what builders publish, and builds the
BM25 index in the background when the corpus moves past it.

One thread per process listens on Postgres (LISTEN ``kgrag_artifacts`` and ``kgrag_corpus``) and
falls back to polling every ``artifacts.poll_interval`` seconds, so a dropped listener or a proxy
without NOTIFY only delays a swap. On a notification it downloads the new version into this data
home, loads it beside the old one and swaps a reference: queries never wait for a load or a build.

Background builds run in the same thread at a lower CPU priority, under the BM25 build lock, so of
N replicas one builds and the rest install what it publishes.

The graph is published the same way, woken by the same kick, but on a thread of its own and after a
quiet period (``artifacts.graph_build_delay``): extraction costs seconds per batch where a BM25 build of
a small corpus costs milliseconds, and a folder upload is hundreds of kicks. Its own thread keeps BM25
builds and installs from waiting behind it. The graph build lock (kg.store.GraphStore.build_lock) makes
it one builder per database; a replica that did not take the upload builds only if the graph has stayed
behind for a poll interval past the quiet period (the uploader died, or `kgrag ingest` ran elsewhere).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
import time
from typing import TYPE_CHECKING, Any

import psycopg
from kgrag.core.artifacts import BM25, CHANNEL, CORPUS_CHANNEL, GRAPH, GRAPH_DELTA, Artifact
from kgrag.core.errors import BuildLockedError, KgragError
from kgrag.core.priority import BUILD_NICE, lower_this_thread
from kgrag.core.runtime import Runtime
from kgrag.kg.graphfile import installed_artifact
from kgrag.kg.holder import GraphHolder, graph_holder, installed_delta
from kgrag.kg.liveness import current_liveness
from kgrag.retrieval.bm25 import BM25Retriever, index_behind
from kgrag.retrieval.bm25_freshness import compaction_due, try_publish_index
from kgrag.retrieval.bm25_index import delta_status
from kgrag.retrieval.graph import graph_builds
from kgrag.retrieval.maintenance import publish_graph

if TYPE_CHECKING:
    from kgrag.kg.build import BuildReport
    from kgrag.retrieval.pipeline import QueryPipeline

log = logging.getLogger("kgrag.sync")

KICK = "kick"
WAIT_SLICE = 0.25
"""Seconds between checks for a local kick while waiting for notifications."""
GRAPH_MAX_DEFER = 30.0
"""Seconds a background graph build may be put off by uploads that never pause: a long folder upload still
reaches the graph signal within a minute, a build at a time, rather than only after its last file."""


class ArtifactSync:
    """Keeps this process's BM25 index and graph at the versions published in the database."""

    def __init__(self, rt: Runtime, bm25: BM25Retriever | None, graph: GraphHolder | None, *,
                 background_builds: bool | None = None, listen: bool = True) -> None:
        self.rt = rt
        self.bm25 = bm25
        self.graph = graph
        cfg = rt.settings.artifacts
        self.poll_interval = cfg.poll_interval
        self.build_delay = cfg.build_delay
        self.background_builds = cfg.background_builds if background_builds is None else background_builds
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._listener: psycopg.Connection | None = None
        self._listens = listen
        self.last_error: str = ""
        self._behind = index_behind(rt)
        self.graph_build_delay = cfg.graph_build_delay
        self.builds = graph_builds(rt)
        self._graph_builds = self.background_builds and cfg.background_graph_builds and graph is not None
        self._graph_cond = threading.Condition()
        self._graph_first: float | None = None
        self._graph_behind_since: float | None = None
        self._graph_lock = threading.Lock()
        self._graph_thread: threading.Thread | None = None

    # -- what the rest of the process calls -------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kgrag-artifact-sync", daemon=True)
        self._thread.start()
        if self._graph_builds:  # only a started sync builds: a CLI command's stale graph is its user's to build
            self.builds.background = True
            self._graph_thread = threading.Thread(target=self._graph_run, name="kgrag-graph-build", daemon=True)
            self._graph_thread.start()

    def kick(self) -> None:
        """The corpus changed through this replica (an upload, a delete): build and publish the BM25 index
        soon, and the graph once uploads pause."""
        self._wake.set()
        self._schedule_graph(self.graph_build_delay)

    def close(self) -> None:
        """Stops the threads within a wait slice (or after a build in progress) and closes its listener."""
        self._stop.set()
        self._wake.set()
        with self._graph_cond:
            self._graph_cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=60)
        else:
            self._drop_listener()
        if self._graph_thread is not None:
            self._graph_thread.join(timeout=60)

    def build_graph(self, *, rebuild: bool = False, full: bool = False) -> BuildReport:
        """The one way this process builds the graph (a POST /v1/graph/build job, the background builder),
        one at a time: a build asked for while the background one runs waits for it rather than failing on
        the database lock. Loads the result here, not in the next query."""
        with self._graph_lock:
            report = publish_graph(self.rt, rebuild=rebuild, full=full)
        self.sync_once()
        return report

    def graph_pending(self) -> bool:
        """Whether documents changed since the published graph (its delta included): what a build would catch
        up. A database with no graph is pending once it holds documents."""
        now = self.rt.store.corpus_version()
        published = self.rt.artifacts.current(GRAPH)
        if published is None:
            return now > 0 and self.rt.store.count_chunks() > 0
        built = published.corpus_version
        delta = self.rt.artifacts.current(GRAPH_DELTA)
        if delta is not None and delta.manifest.get("base_artifact") == published.sha256:
            built = max(built, delta.corpus_version)
        return now > built

    def sync_once(self, *, build: bool = False) -> None:
        """Install any newer published version; with ``build``, publish a fresh BM25 index first when the
        corpus is ahead of it and no other replica is building one."""
        with self._lock:
            if build and self.bm25 is not None:
                self._build_bm25_if_behind()
                self._compact_bm25_if_due()
            if self.bm25 is not None:
                self.bm25.sync()
            if self.graph is not None:
                self._sync_graph()

    def status(self) -> dict[str, Any]:
        """What this replica serves (GET /v1/artifacts): equal on every replica once they have synced."""
        out: dict[str, Any] = {"database_id": self.rt.artifacts.database_id(),
                               "corpus_version": self.rt.store.corpus_version()}
        index = self.bm25.current_index() if self.bm25 is not None else None
        out[BM25] = ({"corpus_version": index.serving_version, "base_version": index.corpus_version,
                      "sha256": index.artifact, "chunks": index.chunks, **delta_status(index)}
                     if index is not None else None)
        graph = None
        if self.graph is not None:
            with contextlib.suppress(KgragError, OSError, ValueError):
                loaded = self.graph.current()
                if loaded is not None:
                    live = current_liveness(loaded, self.rt.store.corpus_state(), self.rt.store.gone_chunk_ids)
                    delta = loaded.delta()
                    graph = {"corpus_version": loaded.corpus_version, "sha256": installed_artifact(self.graph.path),
                             "hidden_nodes": live.hidden_count if live is not None else 0,
                             "base_version": delta["base_version"] if delta else loaded.corpus_version,
                             "delta_version": loaded.corpus_version if delta else None,
                             "delta_chunks": delta["chunks"] if delta else None}
        out[GRAPH] = graph
        if self.graph is not None:
            pending = self.graph_pending()
            out["graph_build"] = {"pending": pending, "state": self.builds.state(), "builds": self.builds.builds,
                                  "last_seconds": self.builds.last_seconds,
                                  "last_error": self.builds.last_error or None,
                                  "reason": (f"documents changed since the published graph: {self.builds.catching_up()}"
                                             if pending else "the published graph covers every document")}
        if self.last_error:
            out["last_error"] = self.last_error
        return out

    # -- the thread ---------------------------------------------------------------------------------
    def _run(self) -> None:
        """Sync on every notification; build when this replica took the upload (a kick), or, as the
        fallback for a builder that died, when the index has stayed behind for a whole poll interval.
        Replicas that only heard of a change do not race to build it: one build, the rest install."""
        lower_this_thread(BUILD_NICE)  # builds and loads here yield the cores to queries
        try:
            self._loop()
        finally:
            self._drop_listener()

    def _loop(self) -> None:
        self._safe_sync(build=self.background_builds)
        next_poll = time.monotonic() + self.poll_interval
        while not self._stop.is_set():
            event = self._wait(min(WAIT_SLICE, max(0.0, next_poll - time.monotonic())))
            if self._stop.is_set():
                return
            if event == KICK:
                self._stop.wait(self.build_delay)  # a burst of uploads costs one build
                self._wake.clear()
                self._safe_sync(build=self.background_builds)
            elif event:
                self._safe_sync(build=False)
            elif time.monotonic() >= next_poll:
                behind = self._behind.since
                overdue = behind is not None and time.monotonic() - behind >= self.poll_interval
                self._safe_sync(build=self.background_builds and overdue)
                self._graph_fallback()
                next_poll = time.monotonic() + self.poll_interval

    def notice_stale(self) -> None:
        """A query saw the index behind the corpus: if no builder catches up within a poll interval
        (the replica that took the upload died), this one builds."""
        self._behind.notice()

    def _safe_sync(self, *, build: bool) -> None:
        try:
            self.sync_once(build=build)
            self.last_error = ""
            self._track_behind()
        except Exception as exc:  # keep serving what is loaded; the next wake retries
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.warning("artifact sync failed (serving the loaded versions; retrying): %s", self.last_error)

    def _track_behind(self) -> None:
        index = self.bm25.current_index() if self.bm25 is not None else None
        if index is None or index.serving_version != self.rt.store.corpus_version():
            self.notice_stale()
        else:
            self._behind.clear()

    def _wait(self, timeout: float) -> str:
        """Block until a kick, a notification (its channel) or ``timeout``; '' for a timeout."""
        if self._wake.is_set():
            return KICK
        if not self._listens:  # polling only: wake on a local kick or the timeout
            self._wake.wait(timeout)
            return KICK if self._wake.is_set() else ""
        try:
            conn = self._listen()
            for note in conn.notifies(timeout=timeout, stop_after=1):
                return note.channel
        except Exception as exc:
            self._drop_listener()
            if not self._stop.is_set():
                log.info("artifact listener lost (%s); polling every %.1f s", exc, self.poll_interval)
            self._wake.wait(timeout)
        return KICK if self._wake.is_set() else ""

    def _listen(self) -> psycopg.Connection:
        if self._listener is None or self._listener.closed:
            conn = psycopg.connect(self.rt.db.url, autocommit=True, connect_timeout=5)
            conn.execute(f"LISTEN {CHANNEL}")
            conn.execute(f"LISTEN {CORPUS_CHANNEL}")
            self._listener = conn
        return self._listener

    def _drop_listener(self) -> None:
        conn, self._listener = self._listener, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    # -- work -----------------------------------------------------------------------------------------
    def _build_bm25_if_behind(self) -> None:
        assert self.bm25 is not None
        t0 = time.perf_counter()
        index = try_publish_index(self.rt.store, self.bm25.settings, self.rt.artifacts, self.bm25.root)
        if index is None:
            return  # another replica is building; its publish wakes us
        log.info("BM25 index published at corpus version %d (%d chunks; %.1f s, a build only if it was behind)",
                 index.corpus_version, index.size, time.perf_counter() - t0)

    # -- the graph builder -----------------------------------------------------------------------------
    def _schedule_graph(self, delay: float) -> None:
        """Start a graph build ``delay`` seconds from now, or later if more changes come (each one restarts
        the quiet period, up to GRAPH_MAX_DEFER after the first): a burst of uploads costs one build."""
        if not self.builds.background:
            return
        with self._graph_cond:
            now = time.monotonic()
            if self._graph_first is None:
                self._graph_first = now
            self.builds.due_at = min(now + delay, self._graph_first + GRAPH_MAX_DEFER)
            self._graph_cond.notify_all()

    def _graph_run(self) -> None:
        lower_this_thread(BUILD_NICE)  # extraction yields the cores to queries
        while not self._stop.is_set():
            with self._graph_cond:
                while not self._stop.is_set() and (self.builds.due_at is None
                                                   or time.monotonic() < self.builds.due_at):
                    due = self.builds.due_at
                    self._graph_cond.wait(1.0 if due is None else min(1.0, max(0.01, due - time.monotonic())))
                if self._stop.is_set():
                    return
                self._graph_first = None
                self.builds.due_at = None  # changes from now on schedule the next build
            self._safe_build_graph()

    def _safe_build_graph(self) -> None:
        """One background build, if the graph is behind; errors are logged and shown in status, never raised
        (the loaded graph keeps serving)."""
        t0 = time.perf_counter()
        try:
            if not self.graph_pending():
                self.builds.waiting = ""
                return
            if self._deletes_only_on_large_graph():
                return
            self.builds.waiting = ""
            self.builds.building = True
            report = self.build_graph()
        except BuildLockedError:  # another replica or `kgrag graph build` holds the lock: check again after it
            log.info("graph build deferred: another build is running against this database")
            self._schedule_graph(self.poll_interval)
            return
        except Exception as exc:
            first_line = (str(exc).splitlines() or [""])[0]  # psycopg appends the statement's text
            self.builds.last_error = f"{type(exc).__name__}: {first_line}"
            log.warning("background graph build failed (serving the loaded graph): %s", self.builds.last_error)
            return
        finally:
            self.builds.building = False
        self.builds.builds += 1
        self.builds.last_error = ""
        self.builds.last_seconds = round(time.perf_counter() - t0, 3)
        kind = f"a delta of {report.delta_chunks} chunks" if report.delta_chunks else "a whole build"
        log.info("background graph build published corpus version %d (%s, %d chunks extracted; %.1f s)",
                 report.corpus_version, kind, report.chunks_processed, self.builds.last_seconds)

    def _deletes_only_on_large_graph(self) -> bool:
        """A graph large enough for deltas whose only changes are deletes: a build would be whole (minutes at a
        million chunks) to drop words that queries already never reach (kg.liveness), so it waits for the
        next build that adds documents, which compacts once graph.compact_after has passed."""
        from kgrag.kg.store import GraphStore

        published = self.rt.artifacts.current(GRAPH)
        covered = int((published.manifest.get("counts") or {}).get("chunks", 0)) if published is not None else 0
        if covered < self.rt.settings.graph.delta_min_chunks or GraphStore(self.rt.db).pending_documents():
            return False
        self.builds.waiting = ("only deletes since the published graph, already hidden from it; their words leave "
                               "it at the next build that adds documents (or `kgrag graph build --full`)")
        return True

    def _graph_fallback(self) -> None:
        """On a poll: a graph left behind with no build coming (the replica that took the upload died, or the
        corpus changed through the CLI) is built here once it has stayed behind past the quiet period and a
        poll interval; replicas that heard of a change otherwise leave it to the one that took it."""
        if not self.builds.background or self.builds.building or self.builds.due_at is not None:
            return
        try:
            pending = self.graph_pending()
        except KgragError:
            return
        if not pending:
            self._graph_behind_since = None
            self.builds.waiting = ""
            return
        if self.builds.waiting or self.builds.last_error:  # a failed build is retried on the next change, not per poll
            return
        now = time.monotonic()
        if self._graph_behind_since is None:
            self._graph_behind_since = now
        elif now - self._graph_behind_since >= self.poll_interval + self.graph_build_delay:
            self._graph_behind_since = None
            self._schedule_graph(0.0)

    def _compact_bm25_if_due(self) -> None:
        """Fold a delta that retired chunks into a new base once their words have stayed long enough."""
        assert self.bm25 is not None
        if not compaction_due(self.rt.artifacts, self.bm25.variant, self.bm25.settings):
            return
        t0 = time.perf_counter()
        index = try_publish_index(self.rt.store, self.bm25.settings, self.rt.artifacts, self.bm25.root, force=True)
        if index is not None:
            log.info("BM25 delta compacted into a new base at corpus version %d (%.1f s)", index.corpus_version,
                     time.perf_counter() - t0)

    def _sync_graph(self) -> None:
        assert self.graph is not None
        published = self.rt.artifacts.current(GRAPH)
        if published is not None and installed_artifact(self.graph.path) != published.sha256:
            self._install_graph(published)
        delta = self.rt.artifacts.current(GRAPH_DELTA)
        if (delta is not None and published is not None and delta.manifest.get("base_artifact") == published.sha256
                and installed_delta(self.graph.path) != delta.sha256):
            self._install_graph_delta(delta)
        with contextlib.suppress(KgragError, FileNotFoundError):
            graph = self.graph.current()  # a file a builder in this process wrote: load it here, not in a query
            if graph is not None:  # and what a delete took out of it (kg.liveness), before a query needs it
                current_liveness(graph, self.rt.store.corpus_state(), self.rt.store.gone_chunk_ids)

    def _install_graph(self, artifact: Artifact) -> None:
        assert self.graph is not None
        folder = self.graph.path.parent / ".download" / f"a{artifact.id}-{artifact.sha256[:16]}"
        try:
            self.rt.artifacts.download(artifact, folder)
            self.graph.install(folder, artifact.id, artifact.sha256)
            log.info("installed graph %s", artifact.label)
        finally:
            shutil.rmtree(folder.parent, ignore_errors=True)


    def _install_graph_delta(self, artifact: Artifact) -> None:
        assert self.graph is not None
        self.graph.current()  # the base it is laid over
        folder = self.graph.path.parent / ".download-delta" / f"a{artifact.id}-{artifact.sha256[:16]}"
        try:
            self.rt.artifacts.download(artifact, folder)
            if self.graph.install_delta(folder, artifact.sha256) is not None:
                log.info("installed graph delta %s (%s chunks)", artifact.label, artifact.manifest.get("chunks"))
        finally:
            shutil.rmtree(folder.parent, ignore_errors=True)


def fetch_published_graph(rt: Runtime) -> None:
    """Install the database's current graph into this data home if it is not there (a CLI export or stats
    on a home that never built one: the graph lives in the database, the home is only a cache)."""
    ArtifactSync(rt, None, graph_holder(rt), background_builds=False).sync_once()


def sync_for(rt: Runtime, pipeline: QueryPipeline, *, background_builds: bool | None = None,
             start: bool = True, listen: bool = True) -> ArtifactSync:
    """The sync for a pipeline's BM25 retriever and the runtime's graph holder (either may be absent).

    A query that sees a stale index never builds: the retriever tells the runtime's IndexBehind, which
    this sync reads."""
    bm25 = pipeline.retrievers.get("bm25")
    bm25 = bm25 if isinstance(bm25, BM25Retriever) else None
    graph = graph_holder(rt) if "graph" in pipeline.retrievers else None
    sync = ArtifactSync(rt, bm25, graph, background_builds=background_builds, listen=listen)
    if start:
        sync.start()
    return sync
