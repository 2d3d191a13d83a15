"""SIGTERM stops a real `kgrag serve` promptly, even while a client is in the middle of a slow upload."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
from replicas import free_port, replica_env

GRACE_S = 2.0


def _slow_upload(port: int, stop: threading.Event, started: threading.Event) -> None:
    """A 10 MB multipart upload that sends a few bytes every 0.2 s: it would take hours to finish."""
    boundary = "kgragslow"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.txt\"\r\n"
            "Content-Type: text/plain\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall((f"POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {10 * 2**20}\r\n"
                      f"Content-Type: multipart/form-data; boundary={boundary}\r\n\r\n").encode() + head)
        started.set()
        while not stop.is_set():
            try:
                sock.sendall(b"The Kelpie was built in Turku. ")
            except OSError:  # the server closed the connection: what shutting down should do
                return
            time.sleep(0.2)


def test_sigterm_stops_a_server_in_the_middle_of_a_slow_upload(tmp_path: Path, fresh_database_url: str) -> None:
    port = free_port()
    env = replica_env(tmp_path / "home", fresh_database_url, KGRAG_API__SHUTDOWN_GRACE_S=str(GRACE_S))
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "kgrag", "serve", "--port", str(port), "--log-level",
                                 "info"], cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    stop, started = threading.Event(), threading.Event()
    try:
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        uploader = threading.Thread(target=_slow_upload, args=(port, stop, started), daemon=True)
        uploader.start()
        assert started.wait(30)
        time.sleep(1.5)  # the upload is being received
        assert proc.poll() is None
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=GRACE_S + 20)  # it used to be alive 30-40 s later, and would have stayed so
        except subprocess.TimeoutExpired:
            tail = log.read_text()[-2000:]
            raise AssertionError(f"still running {GRACE_S + 20:.0f} s after SIGTERM: {tail}") from None
        assert time.monotonic() - t0 < GRACE_S + 20
    finally:
        stop.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
