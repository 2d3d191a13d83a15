"""Soak: concurrent queries and uploads against a real server on 127.0.0.1, for a while.

Reports request counts, errors (any 5xx, transport error, or unexpected status) and the server
process's RSS after a warm-up, at the end, and every --sample-every seconds in between (the curve),
so a leak or allocator growth shows as a rising line. CI runs a short form in-process
(tests/test_api_soak.py); the long form starts `kgrag serve` as a subprocess, so allocator settings
given through its environment (LD_PRELOAD, MALLOC_ARENA_MAX) apply to it:

    HF_HUB_OFFLINE=1 python bench/soak.py --minutes 30 --allocator glibc --out bench/out/soak-glibc.json
    HF_HUB_OFFLINE=1 python bench/soak.py --minutes 10 --allocator jemalloc --out bench/out/soak-jemalloc.json
    python bench/soak.py --collect bench/out/soak-*.json --out bench/out/soak.json   # one JSON + docs/soak-rss.png
    python bench/harness.py --render bench/REPORT.json --report --merge soak=bench/out/soak.json

--allocator: glibc (the default malloc with its default arenas), jemalloc or mimalloc (LD_PRELOAD of Debian's
libjemalloc2 / libmimalloc2.0), arena2 (glibc with MALLOC_ARENA_MAX=2: what `kgrag serve` sets by default,
api.malloc_arena_max). Every question is different (made from the
example corpus's names and titles: a template, one or two subjects), and every query asks for an
answer (the offline extractive answerer: KGRAG_ANSWER__BACKEND=extractive). Each run gets a fresh
data home (embedded Postgres) under a temporary folder, seeded with examples/ through the API.
--in-process serves the API in this process instead (the old form; allocator options do not apply).
Every loop is bounded by a deadline and a request cap, and only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LOOPBACK = "127.0.0.1"
QUESTIONS = [
    "Who designed the flight controller of the Skua drone?",
    "Where is Polar Cells headquartered?",
    "What is the capital of Estonia?",
    "At what temperature does the soak kiln fire glass?",
    "What is the boiling point of mercury?",
]
_SUBJECTS = ["the Skua drone", "Polar Cells", "Tomas Berg", "Lumen Robotics", "Aalto Shipyards", "Marta Kask",
             "the Bergen Marine Institute", "Northwind Dynamics", "Tallinn", "Ingrid Halvorsen", "Samuel Okafor",
             "warehouse automation", "the Kelpie", "the soak kiln"]
_ASKS = ["Who designed {s}, per report {n}?", "Where is {s} based, according to note {n}?",
         "What did {s} do in {y}, item {n}?", "How is {s} connected to {t} in file {n}?",
         "Which company worked with {s} on project {n}?",
         "Tell me about {s} and {t} (case {n})", "When did {s} first appear in record {n} from {y}?"]


def distinct_question(n: int) -> str:
    """The n-th of an effectively endless set of different questions (lengths and words vary).

    Five fixed questions could not show growth that depends on what is asked: every input shape,
    token and cache key repeats after the first round."""
    s, t = _SUBJECTS[n % len(_SUBJECTS)], _SUBJECTS[(n // len(_SUBJECTS) + 3) % len(_SUBJECTS)]
    return _ASKS[(n // 7) % len(_ASKS)].format(s=s, t=t, n=n, y=1900 + n % 120)


_ONE = ["Who founded {s}?", "Where is {s} based?", "What does {s} make?", "When was {s} founded?",
        "Who leads {s}?", "What is {s} known for?", "Tell me about {s}.", "Which city is {s} in?"]
_TWO = ["How is {s} connected to {t}?", "Did {s} work with {t}?", "What do {s} and {t} have in common?",
        "Which came first, {s} or {t}?", "Who links {s} and {t}?"]
_CAPS = re.compile(r"[A-Z\u00c0-\u00de][\w\u00c0-\u017f-]*(?:[ ]+(?:of[ ]+)?[A-Z\u00c0-\u00de][\w\u00c0-\u017f-]*)*")


_STARTERS = {"when", "today", "before", "most", "modern", "mobile", "maintenance", "after", "since", "its", "the"}


def corpus_subjects(examples: Path) -> list[str]:
    """Names in the example corpus: runs of capitalised words (people, companies, places, ships, titles),
    less any leading word that also occurs in lower case there (a sentence's first word, "The")."""
    texts = [re.sub(r"<[^>]+>", " ", p.read_text(encoding="utf-8", errors="replace"))
             for p in sorted(examples.iterdir()) if p.is_file()]
    common = {w for t in texts for w in re.findall(r"\b[a-z][a-z-]*\b", t)} | _STARTERS
    found: dict[str, None] = {}
    for text in texts:
        for m in _CAPS.finditer(text):
            words = m.group(0).split()
            while words and (words[0].lower() in common or words[0] == "of"):
                words.pop(0)
            name = " ".join(words)
            if len(name) > 3 and not name.endswith(" of"):
                found.setdefault(name)
    return list(found)


def corpus_questions(examples: Path, seed: int = 28) -> list[str]:
    """Every one-subject and two-subject question the templates make from the corpus's names, shuffled
    (fixed seed). No two are the same; the example corpus's 42 names make about 9,000 (past the end,
    question_source adds a round number, so they stay distinct)."""
    subjects = corpus_subjects(examples)
    qs = [t.format(s=s) for t in _ONE for s in subjects]
    qs += [t.format(s=s, t=o) for t in _TWO for s in subjects for o in subjects if o != s]
    random.Random(seed).shuffle(qs)
    return list(dict.fromkeys(qs))


def question_source(questions: list[str]) -> Callable[[int], str]:
    """The n-th question: the list in order, then (past its end) the list again with a round number
    appended, so the texts stay distinct however long the soak runs."""
    def nth(n: int) -> str:
        base = questions[n % len(questions)]
        return base if n < len(questions) else f"{base} (round {n // len(questions) + 1})"
    return nth


UPLOAD_SOURCES = 8
"""Uploads cycle over this many sources, so the corpus stays bounded however long the soak runs."""


@dataclass
class SoakReport:
    seconds: float
    requests: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    rss_after_warmup: int = 0
    rss_end: int = 0
    latencies: dict[str, list[float]] = field(default_factory=dict)
    samples: list[tuple[float, float, int]] = field(default_factory=list)
    """(seconds since the load began, server RSS MB, requests sent so far); the warm-up is t < warmup_s."""
    warmup_s: float = 0.0
    questions: set[str] = field(default_factory=set)
    asked: int = 0

    @property
    def rss_growth(self) -> int:
        return self.rss_end - self.rss_after_warmup

    def summary(self) -> dict[str, Any]:
        def p(values: list[float], q: float) -> float:
            return round(sorted(values)[int(q * (len(values) - 1))], 4) if values else 0.0

        return {
            "seconds": round(self.seconds, 1), "requests": dict(self.requests), "total": sum(self.requests.values()),
            "errors": len(self.errors), "first_errors": self.errors[:5],
            "rss_after_warmup_mb": round(self.rss_after_warmup / 2**20, 1),
            "rss_end_mb": round(self.rss_end / 2**20, 1),
            "rss_growth_mb": round(self.rss_growth / 2**20, 1),
            "rss_growth_pct": round(100 * self.rss_growth / self.rss_after_warmup, 1) if self.rss_after_warmup
            else None,
            "rss_max_mb": round(max([self.rss_end / 2**20] + [s[1] for s in self.samples]), 1),
            "p50_s": {k: p(v, 0.5) for k, v in self.latencies.items()},
            "p95_s": {k: p(v, 0.95) for k, v in self.latencies.items()},
            "p99_s": {k: p(v, 0.99) for k, v in self.latencies.items()},
            "questions_asked": self.asked,
            "distinct_questions": len(self.questions),
            "warmup_s": round(self.warmup_s, 1),
            "samples": [[round(t, 1), round(mb, 1), n] for t, mb, n in self.samples],
        }


def _loopback_only(base_url: str) -> None:
    host = httpx.URL(base_url).host
    if host not in (LOOPBACK, "localhost"):
        raise SystemExit(f"soak targets only {LOOPBACK}, not {host}")


def run_load(base_url: str, *, seconds: float, pid: int, warmup_seconds: float = 5.0, query_threads: int = 4,
             upload_threads: int = 1, max_requests: int = 100_000, api_key: str | None = None,
             question: Callable[[int], str] | None = None, sample_every: float = 0.0) -> SoakReport:
    """Warm up (same mix), sample RSS, then load for ``seconds``; every thread stops at the deadline
    or once ``max_requests`` have been sent in all.

    ``question``: the n-th question (n counts over both phases and all query threads, so every n is
    asked once); every
    query then asks for an answer. Unset: the old mix (a tenth fixed questions, a quarter without an
    answer). ``sample_every`` > 0: the server's RSS every that many seconds, warm-up included."""
    _loopback_only(base_url)
    proc = psutil.Process(pid)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    report = SoakReport(seconds=seconds, warmup_s=warmup_seconds)
    lock = threading.Lock()
    sent = 0
    asked = 0  # question index over both phases and all threads: with ``question``, no text repeats
    started = time.monotonic()
    stop_sampling = threading.Event()

    def sampler() -> None:
        while True:
            try:
                rss = proc.memory_info().rss / 2**20
            except psutil.Error:
                return
            report.samples.append((time.monotonic() - started, rss, sent))
            if stop_sampling.wait(sample_every):
                return

    def record(kind: str, r: httpx.Response | None, elapsed: float, ok: set[int], error: str = "") -> None:
        nonlocal sent
        with lock:
            sent += 1
            report.requests[kind] += 1
            report.latencies.setdefault(kind, []).append(elapsed)
            if r is None or r.status_code not in ok:
                detail = error or (f"{r.status_code} {r.text[:200]}" if r is not None else "no response")
                report.errors.append(f"{kind}: {detail}")

    def send(client: httpx.Client, kind: str, ok: set[int], method: str, path: str, **kwargs: Any) -> None:
        t0 = time.perf_counter()
        try:
            r = client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            record(kind, None, time.perf_counter() - t0, ok, f"{type(exc).__name__}: {exc}")
            return
        record(kind, r, time.perf_counter() - t0, ok)

    def querier(i: int, deadline: float) -> None:
        nonlocal asked
        with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
            n = i
            while time.monotonic() < deadline and sent < max_requests:
                # Mostly distinct questions with answers on: what real clients send, and what grew RSS.
                if question is None:
                    q = QUESTIONS[n % len(QUESTIONS)] if n % 10 == 0 else distinct_question(n)
                    answer = n % 4 != 1
                else:
                    with lock:
                        q, answer = question(asked), True
                        asked += 1
                with lock:
                    report.questions.add(q)
                    report.asked += 1
                if n % 5 == 4:
                    t0 = time.perf_counter()
                    try:
                        with client.stream("POST", "/v1/query/stream", json={"question": q}) as r:
                            body = r.read()
                    except httpx.HTTPError as exc:
                        record("stream", None, time.perf_counter() - t0, {200}, f"{type(exc).__name__}: {exc}")
                    else:
                        ok = r.status_code == 200 and b"event: done" in body
                        record("stream", r if ok else None, time.perf_counter() - t0, {200},
                               "" if ok else f"{r.status_code} {body[-200:]!r}")
                else:
                    send(client, "query", {200}, "POST", "/v1/query",
                         json={"question": q, "top_k": 3 + n % 5, "answer": answer})
                if n % 7 == 0:
                    send(client, "list", {200}, "GET", "/v1/documents", params={"limit": 20})
                n += query_threads

    def uploader(i: int, deadline: float) -> None:
        with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
            n = i
            while time.monotonic() < deadline and sent < max_requests:
                slot = n % UPLOAD_SOURCES
                text = (f"# Soak note {slot}\n\nThe soak kiln number {slot} fires glass at {1000 + n} degrees. "
                        f"Revision {n} of the note lists the ferry times for harbour {slot}.\n")
                if n % 2:
                    send(client, "upload", {201}, "POST", "/v1/documents",
                          files={"file": (f"soak-{slot}.md", text.encode(), "text/markdown")})
                else:
                    send(client, "upload", {201}, "POST", "/v1/documents",
                         json={"text": text, "title": f"Soak {slot}", "source": f"soak/{slot}"})
                n += upload_threads

    def phase(duration: float) -> None:
        deadline = time.monotonic() + duration
        threads = [threading.Thread(target=querier, args=(i, deadline)) for i in range(query_threads)]
        threads += [threading.Thread(target=uploader, args=(i, deadline)) for i in range(upload_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=duration + 120)
        if any(t.is_alive() for t in threads):
            report.errors.append("a load thread did not stop within two minutes of its deadline")

    sampling = threading.Thread(target=sampler, daemon=True) if sample_every > 0 else None
    if sampling:
        sampling.start()
    phase(warmup_seconds)
    report.requests.clear()
    report.latencies.clear()
    warmup_errors = list(report.errors)
    report.rss_after_warmup = proc.memory_info().rss
    t0 = time.monotonic()
    phase(seconds)
    report.seconds = time.monotonic() - t0
    report.rss_end = proc.memory_info().rss
    stop_sampling.set()
    if sampling:
        sampling.join(timeout=10)
    report.samples.append((time.monotonic() - started, report.rss_end / 2**20, sent))
    report.errors = warmup_errors + report.errors
    return report


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


@contextmanager
def serve_in_thread(app: Any, port: int | None = None) -> Iterator[str]:
    """uvicorn on 127.0.0.1 in a daemon thread (lifespan included); yields the base URL."""
    import uvicorn

    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host=LOOPBACK, port=port, log_level="warning", access_log=False,
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, name="soak-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the soak server did not start")
        time.sleep(0.05)
    try:
        yield f"http://{LOOPBACK}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


def seed(base_url: str, examples: Path, api_key: str | None = None) -> None:
    """The example corpus, uploaded through the API (so the soak needs nothing already stored)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(base_url=base_url, headers=headers, timeout=120) as client:
        for path in sorted(examples.iterdir()):
            if path.is_file():
                r = client.post("/v1/documents", files={"file": (path.name, path.read_bytes())})
                if r.status_code != 201:
                    raise RuntimeError(f"seeding {path.name}: {r.status_code} {r.text[:200]}")


LIBDIR = Path("/usr/lib/x86_64-linux-gnu")
ALLOCATORS: dict[str, dict[str, str]] = {
    "glibc": {"KGRAG_API__MALLOC_ARENA_MAX": "0"},  # glibc's own arenas (8 per core), not serve's cap
    "jemalloc": {"LD_PRELOAD": str(LIBDIR / "libjemalloc.so.2")},
    "mimalloc": {"LD_PRELOAD": str(LIBDIR / "libmimalloc.so.2")},
    "arena2": {"MALLOC_ARENA_MAX": "2"},
}
"""Allocator options for the server process, as environment variables (Debian: apt-get install libjemalloc2
libmimalloc2.0)."""
TARGET_PCT = 10.0
"""RSS levels off: at the end within this many percent of RSS at the end of the warm-up."""


def allocator_env(name: str) -> dict[str, str]:
    env = dict(ALLOCATORS[name])
    lib = env.get("LD_PRELOAD")
    if lib and not Path(lib).exists():
        raise SystemExit(f"{name}: {lib} is not installed (apt-get install libjemalloc2 libmimalloc2.0)")
    return env


def preloaded(pid: int, lib: str | None) -> bool | None:
    """Whether the preloaded allocator is mapped into the server (None: nothing preloaded)."""
    if not lib:
        return None
    try:
        return Path(lib).name in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def wait_until_healthy(base: str, proc: subprocess.Popen[Any], *, within_s: float, request_timeout: float,
                       poll_s: float, failure: str) -> None:
    """Returns once ``base``/v1/health answers below 500; RuntimeError(``failure``) when the server exits or
    ``within_s`` pass first (a first start may load models and build indexes)."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            if httpx.get(base + "/v1/health", timeout=request_timeout).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(failure)
        time.sleep(poll_s)


@contextmanager
def serve_subprocess(home: Path, env: dict[str, str], log_path: Path) -> Iterator[tuple[str, int]]:
    """`kgrag serve` on a free loopback port with ``env`` added; yields (base URL, server pid)."""
    port = free_port()
    exe = shutil.which("kgrag", path=str(Path(sys.executable).parent)) or "kgrag"
    full_env = {**os.environ, "KGRAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                "KGRAG_ANSWER__BACKEND": "extractive", **env}
    with log_path.open("ab") as log_file:
        proc = subprocess.Popen([exe, "serve", "--host", LOOPBACK, "--port", str(port), "--log-level", "warning"],
                                env=full_env, stdout=log_file, stderr=subprocess.STDOUT)
        base = f"http://{LOOPBACK}:{port}"
        try:
            wait_until_healthy(base, proc, within_s=600, request_timeout=5, poll_s=1,
                               failure=f"kgrag serve did not start (see {log_path})")
            yield base, proc.pid
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)


def level_verdict(summary: dict[str, Any]) -> str:
    pct = summary.get("rss_growth_pct")
    if pct is None:
        return "n/a"
    return "met" if pct <= TARGET_PCT else "**above target**"


def collect(paths: list[Path]) -> dict[str, Any]:
    """The soak runs' JSON files as one section for bench/REPORT.json (keyed by allocator, in the order given)."""
    runs: dict[str, Any] = {}
    for path in paths:
        run = json.loads(path.read_text())
        runs[run["allocator"]] = run
    return {"target": f"RSS levels off: at the end within {TARGET_PCT:g}% of RSS at the end of the warm-up",
            "target_pct": TARGET_PCT, "chart": "soak-rss.png", "runs": runs}


def chart(section: dict[str, Any], out: Path) -> bool:
    """RSS over time per allocator as a PNG (matplotlib, if installed); False when it is not."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 4.2), dpi=100)
    for name, run in section["runs"].items():
        xs = [t / 60 for t, _mb, _n in run["samples"]]
        ys = [mb for _t, mb, _n in run["samples"]]
        ax.plot(xs, ys, label=f"{name} ({run['minutes']:g} min)", linewidth=1.4)
    ax.axvline(max(r["warmup_s"] for r in section["runs"].values()) / 60, color="grey", linestyle=":",
               linewidth=1, label="end of warm-up")
    first_name, first = next(iter(section["runs"].items()))
    ax.axhline(first["rss_after_warmup_mb"] * (1 + section["target_pct"] / 100), color="grey", linestyle="--",
               linewidth=1, label=f"target: {first_name} warm-up +{section['target_pct']:g}%")
    ax.set_xlabel("minutes since the load began")
    ax.set_ylabel("server RSS (MB)")
    ax.set_title("kgrag serve RSS under distinct answered questions (bench/soak.py)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, metadata={"Software": None})
    plt.close(fig)
    return True


def slope(run: dict[str, Any]) -> str:
    """Least-squares RSS slope over the last third of the load phase, MB per 10 minutes: still rising or level."""
    pts = [(t, mb) for t, mb, _n in run["samples"] if t >= run["warmup_s"]]
    pts = [p for p in pts if p[0] >= pts[-1][0] - (pts[-1][0] - pts[0][0]) / 3] if pts else []
    if len(pts) < 3:
        return "-"
    mt, mm = sum(t for t, _ in pts) / len(pts), sum(mb for _, mb in pts) / len(pts)
    den = sum((t - mt) ** 2 for t, _ in pts)
    per_s = sum((t - mt) * (mb - mm) for t, mb in pts) / den if den else 0.0
    return f"{per_s * 600:+.1f} MB/10 min"


def growth_at(run: dict[str, Any], minutes: float) -> str:
    """RSS growth over the warm-up's RSS at ``minutes`` after the warm-up (the first sample at or past it)."""
    at = run["warmup_s"] + minutes * 60
    mb = next((mb for t, mb, _n in run["samples"] if t >= at - 1), run["samples"][-1][1])
    base = run["rss_after_warmup_mb"]
    return f"{mb - base:+.0f} MB ({100 * (mb - base) / base:+.1f}%)"


def render_section(section: dict[str, Any]) -> list[str]:
    """Markdown for bench/REPORT.md (harness.render calls this): the table, the chart, the samples."""
    common = min(r["minutes"] for r in section["runs"].values())
    lines = ["## Soak: distinct questions with answers on", "",
             f"Target: {section['target']}. Server: `kgrag serve` as a subprocess, its process's RSS sampled "
             "with psutil (the embedded Postgres is a separate process and not counted); the offline "
             "extractive answerer; every question different (template x names from examples/).", "",
             "| allocator | env | minutes | warm-up RSS MB | end RSS MB | max RSS MB | growth | verdict | "
             f"slope, last third | growth at {common:g} min | questions (distinct) | errors | "
             "load avg start / end |",
             "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|"]
    for name, r in section["runs"].items():
        env = " ".join(f"{k}={Path(v).name if k == 'LD_PRELOAD' else v}" for k, v in r["env"].items()) or "-"
        lines.append(
            f"| {name} | {env} | {r['minutes']:g} | {r['rss_after_warmup_mb']} | {r['rss_end_mb']} | "
            f"{r['rss_max_mb']} | {r['rss_growth_mb']:+} MB ({r['rss_growth_pct']:+}%) | {level_verdict(r)} | "
            f"{slope(r)} | {growth_at(r, common)} | {r['questions_asked']} ({r['distinct_questions']}) | "
            f"{r['errors']} | {r['load_average_start'][0]} / {r['load_average_end'][0]} |")
    lines += ["", f"![server RSS over time]({section['chart']})", "",
              "Samples (minutes: RSS MB), every fifth sample and the last:", ""]
    for name, r in section["runs"].items():
        pts = r["samples"][::5] + ([r["samples"][-1]] if (len(r["samples"]) - 1) % 5 else [])
        lines.append(f"- {name}: " + ", ".join(f"{t / 60:.1f}: {mb:.0f}" for t, mb, _n in pts))
    lines += ["", "Commands:", ""]
    lines += [f"- `{r['command']}` ({r['started']}, commit {r['commit']})" for r in section["runs"].values()]
    if section.get("collected_by"):
        notes_elided = re.sub(r" --note ('(?:[^']|'\"'\"')*'|\S+)", " --note …", section["collected_by"])
        lines.append(f"- `{notes_elided}` (each `--note …` is one of the paragraphs below; the full command "
                     "is in the JSON's collected_by)")
    for note in section.get("notes") or []:
        lines += ["", note]
    return [*lines, ""]


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).resolve().parent,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0, help="How long to load after the warm-up.")
    parser.add_argument("--warmup", type=float, default=60.0, help="Seconds of load before RSS is taken as the base.")
    parser.add_argument("--query-threads", type=int, default=4)
    parser.add_argument("--upload-threads", type=int, default=1)
    parser.add_argument("--max-requests", type=int, default=1_000_000)
    parser.add_argument("--max-growth-mb", type=float, default=100.0,
                        help="--in-process only: fail when RSS grows more than this.")
    parser.add_argument("--allocator", choices=sorted(ALLOCATORS), default="glibc",
                        help="The server's allocator (environment of `kgrag serve`).")
    parser.add_argument("--sample-every", type=float, default=30.0, help="Seconds between RSS samples.")
    parser.add_argument("--in-process", action="store_true",
                        help="Serve in this process (KGRAG_HOME, default .kgrag/soak) instead of a subprocess.")
    parser.add_argument("--out", type=Path, default=None, help="Write the run's JSON (or --collect's) here.")
    parser.add_argument("--collect", type=Path, nargs="+", default=None,
                        help="Merge these runs' JSON files into one report section (--out) and draw the chart.")
    parser.add_argument("--note", action="append", default=[],
                        help="With --collect: a sentence for the report about how the runs were made (repeatable).")
    parser.add_argument("--chart", type=Path, default=Path(__file__).resolve().parent / "soak-rss.png")
    args = parser.parse_args(argv)
    command = "python bench/soak.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    if args.collect:
        section = collect(args.collect)
        section["collected_by"] = command
        section["notes"] = args.note
        section["chart"] = os.path.relpath(args.chart, Path(__file__).resolve().parent)
        if not chart(section, args.chart):
            section["chart_missing"] = "matplotlib is not installed: see the samples below"
        text = json.dumps(section, indent=2) + "\n"
        if args.out:
            args.out.write_text(text)
        print(text)
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    examples = Path(__file__).resolve().parent.parent / "examples"
    questions = question_source(corpus_questions(examples))
    load_start = [round(x, 2) for x in os.getloadavg()]
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    commit = git_commit()  # what is checked out when the run starts (the code it runs)
    env: dict[str, str] = {}
    preload: bool | None = None
    if args.in_process:
        os.environ.setdefault("KGRAG_HOME", ".kgrag/soak")
        from kgrag.api.app import create_app
        from kgrag.core.settings import Settings

        with serve_in_thread(create_app(Settings())) as url:
            seed(url, examples)
            report = run_load(url, seconds=args.minutes * 60, pid=os.getpid(), warmup_seconds=args.warmup,
                              query_threads=args.query_threads, upload_threads=args.upload_threads,
                              max_requests=args.max_requests, question=questions, sample_every=args.sample_every)
    else:
        env = allocator_env(args.allocator)
        with tempfile.TemporaryDirectory(prefix=f"kgrag-soak-{args.allocator}-") as tmp:
            log_path = Path(tmp).parent / f"kgrag-soak-{args.allocator}-{os.getpid()}.server.log"
            with serve_subprocess(Path(tmp) / "home", env, log_path) as (url, pid):
                preload = preloaded(pid, env.get("LD_PRELOAD"))
                seed(url, examples)
                report = run_load(url, seconds=args.minutes * 60, pid=pid, warmup_seconds=args.warmup,
                                  query_threads=args.query_threads, upload_threads=args.upload_threads,
                                  max_requests=args.max_requests, question=questions,
                                  sample_every=args.sample_every)
    summary = {"allocator": "in-process" if args.in_process else args.allocator, "env": env,
               "allocator_mapped": preload, "minutes": args.minutes, **report.summary(),
               "verdict": None, "started": started, "commit": commit, "command": command,
               "load_average_start": load_start, "load_average_end": [round(x, 2) for x in os.getloadavg()],
               "cores": os.cpu_count(), "query_threads": args.query_threads, "upload_threads": args.upload_threads}
    summary["verdict"] = level_verdict(summary)
    text = json.dumps(summary, indent=2) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)
    if report.errors:
        return 1
    if args.in_process:
        return 0 if report.rss_growth < args.max_growth_mb * 2**20 else 1
    return 0 if summary["verdict"] == "met" else 1


if __name__ == "__main__":
    raise SystemExit(main())
