"""A real headless Chromium driven over the Chrome DevTools Protocol (a websocket), for UI tests.

No driver download (Playwright fetches its own browsers, which this machine cannot): Debian's
``chromium`` package and the ``websockets`` client are enough. The browser starts on a free port
with a throw-away profile, reaches only the 127.0.0.1 server under test, and is killed on exit.
"""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

CHROMIUM = Path(shutil.which("chromium") or "/usr/bin/chromium")
FLAGS = (
    "--headless", "--no-sandbox", "--no-first-run", "--no-default-browser-check", "--disable-quic",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
    "--disable-dev-shm-usage", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--hide-scrollbars",
    "--mute-audio", "--proxy-server=direct://", "--proxy-bypass-list=*",
)
"""SwiftShader gives WebGL without a GPU (sigma.js draws with WebGL); no proxy: only 127.0.0.1 is reached."""


class BrowserError(AssertionError):
    pass


class Page:
    """One tab: send a CDP command and wait for its answer; events are not needed by these tests."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = itertools.count(1)

    def send(self, method: str, timeout: float = 60, **params: Any) -> dict[str, Any]:
        msg_id = next(self._ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no answer to {method} in {timeout}s")
            message = json.loads(self.ws.recv(timeout=left))
            if message.get("id") == msg_id:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str, timeout: float = 60) -> Any:
        """The value of a JavaScript expression (promises awaited); a page exception fails the test."""
        result = self.send("Runtime.evaluate", timeout=timeout, expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails'].get('exception', result)}")
        return result.get("result", {}).get("value")

    def goto(self, url: str) -> None:
        """Navigate, and wait until the new document has replaced the old one. Page.navigate answers when the
        navigation starts: a wait polled next could read the previous test's page (its "cited" answer, its
        drawn graph) and pass on that under load. A change of the fragment alone stays in the same document
        (no loader) and returns at once."""
        self._mark_leaving()
        if "loaderId" in self.send("Page.navigate", url=url):
            self._wait_arrived()

    def reload(self) -> None:
        """Load the current URL afresh (after a fragment change, to start the app on that page)."""
        self._mark_leaving()
        self.send("Page.reload")
        self._wait_arrived()

    def _mark_leaving(self) -> None:
        with suppress(BrowserError):  # no document yet (a new tab): nothing old to wait out
            self.evaluate("window.kgragTestLeaving = true")

    def _wait_arrived(self) -> None:
        self.wait_for("!window.kgragTestLeaving && document.readyState !== 'loading'")

    def wait_for(self, expression: str, timeout: float = 30, interval: float = 0.05) -> Any:
        """Polls until the expression is truthy; an element counts as true (CDP returns nodes as ``{}``).
        While a page is loading the expression may throw (no body yet): that counts as not yet."""
        deadline = time.monotonic() + timeout
        last_error = ""
        while True:
            try:
                value = self.evaluate(f"(v => v instanceof Node ? true : v)({expression})")
            except BrowserError as exc:
                value, last_error = None, str(exc)
            if value:
                return value
            if time.monotonic() > deadline:
                state = self.evaluate("JSON.stringify(document.body ? document.body.dataset : {})")
                raise BrowserError(f"timed out after {timeout}s waiting for {expression!r}; body data: {state}; "
                                   f"last error: {last_error or 'none'}")
            time.sleep(interval)

    def set_files(self, selector: str, paths: list[Path]) -> None:
        root = self.send("DOM.getDocument")["root"]["nodeId"]
        node = self.send("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
        if not node:
            raise BrowserError(f"no element matches {selector!r}")
        self.send("DOM.setFileInputFiles", nodeId=node, files=[str(p) for p in paths])

    def drop_files(self, selector: str, paths: list[Path]) -> None:
        """Drags files from outside the page onto the element and drops them, as from a file manager: the
        browser's own dragenter, dragover and drop events, with a real DataTransfer of those files."""
        at = self.evaluate(f"""(() => {{ const el = document.querySelector({json.dumps(selector)});
            if (!el) return null; el.scrollIntoView({{block: 'center'}}); const r = el.getBoundingClientRect();
            return {{x: r.left + r.width / 2, y: r.top + r.height / 2}}; }})()""")
        if not at:
            raise BrowserError(f"no element matches {selector!r}")
        data = {"items": [], "files": [str(p) for p in paths], "dragOperationsMask": 1}
        for kind in ("dragEnter", "dragOver", "drop"):
            self.send("Input.dispatchDragEvent", type=kind, x=at["x"], y=at["y"], data=data)

    def click_at(self, x: float, y: float) -> None:
        """A real mouse click (press and release) at viewport coordinates, as a user's would arrive."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))


def _devtools_port(profile: Path, proc: subprocess.Popen[bytes], timeout: float = 60) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while not marker.exists() or not marker.read_text().strip():
        if proc.poll() is not None:
            raise BrowserError(f"chromium exited with {proc.returncode}: {proc.stderr.read().decode()[-2000:]}"
                               if proc.stderr else f"chromium exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise BrowserError("chromium did not open its DevTools port")
        time.sleep(0.05)
    return int(marker.read_text().split()[0])


@contextmanager
def browser_page(width: int = 1280, height: int = 800) -> Iterator[Page]:
    """A fresh headless Chromium with one blank tab of ``width`` × ``height``."""
    if not CHROMIUM.exists():
        raise BrowserError("chromium is not installed: apt-get install -y chromium (CI: `make system-deps`)")
    profile = Path(tempfile.mkdtemp(prefix="kgrag-chromium-"))
    proc = subprocess.Popen([str(CHROMIUM), *FLAGS, "--remote-debugging-port=0", f"--user-data-dir={profile}",
                             f"--window-size={width},{height}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        port = _devtools_port(profile, proc)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            targets = json.loads(resp.read())
        target = next(t for t in targets if t.get("type") == "page")
        with connect(target["webSocketDebuggerUrl"], max_size=64 * 2**20, open_timeout=20) as ws:
            page = Page(ws)
            page.send("Page.enable")
            page.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                      mobile=False)
            yield page
    finally:
        proc.kill()
        proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()
        shutil.rmtree(profile, ignore_errors=True)
