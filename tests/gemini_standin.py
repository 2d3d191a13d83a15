"""A local stand-in for the Gemini REST API, so tests run google-genai's real client with no network.

It speaks the two shapes the SDK uses for text: ``POST /v1beta/models/{model}:generateContent``
(one JSON response) and ``:streamGenerateContent?alt=sse`` (``data: {json}`` events). Every
request is recorded, so a test can assert on the prompt the SDK actually sent.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Reply = Callable[[str], str]
"""Given the prompt text the SDK sent, the reply text the stand-in returns."""

_PATH = re.compile(
    r"^/(?P<version>v1[a-z0-9]*)/models/(?P<model>[^:/]+):(?P<method>generateContent|streamGenerateContent)$"
)


@dataclass
class Recorded:
    method: str
    model: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def prompt(self) -> str:
        """All user text parts, joined (the passages and the question)."""
        return "\n".join(p.get("text", "") for c in self.body.get("contents", []) for p in c.get("parts", []))

    @property
    def system_instruction(self) -> str:
        si = self.body.get("systemInstruction") or {}
        return "\n".join(p.get("text", "") for p in si.get("parts", []))


@dataclass
class GeminiStandIn:
    reply: Reply = lambda prompt: "The documents don't say."
    status: int = 200
    """Answer every request with this status (an error body when not 200), to test failures."""
    chunk_chars: int = 12
    requests: list[Recorded] = field(default_factory=list)
    base_url: str = ""

    def response_json(self, text: str, model: str, finish: bool = True) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
        if finish:
            cand["finishReason"] = "STOP"
        return {
            "candidates": [cand],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": model,
        }


def _handler(standin: GeminiStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            url = urlsplit(self.path)
            match = _PATH.match(url.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if match is None:
                self._send(404, json.dumps({"error": {"code": 404, "message": f"no route {url.path}",
                                                      "status": "NOT_FOUND"}}).encode())
                return
            rec = Recorded(match["method"], match["model"], parse_qs(url.query), dict(self.headers.items()), body)
            standin.requests.append(rec)
            if standin.status != 200:
                err = {"error": {"code": standin.status, "message": "stand-in refused the request",
                                 "status": "PERMISSION_DENIED" if standin.status == 403 else "UNAVAILABLE"}}
                self._send(standin.status, json.dumps(err).encode())
                return
            text = standin.reply(rec.prompt)
            if rec.method == "generateContent":
                self._send(200, json.dumps(standin.response_json(text, rec.model)).encode())
                return
            pieces = [text[i : i + standin.chunk_chars] for i in range(0, len(text), standin.chunk_chars)] or [""]
            events = b"".join(
                b"data: " + json.dumps(standin.response_json(p, rec.model, finish=i == len(pieces) - 1)).encode()
                + b"\r\n\r\n"
                for i, p in enumerate(pieces)
            )
            self._send(200, events, "text/event-stream")

    return Handler


@contextmanager
def running_standin(reply: Reply | None = None) -> Iterator[GeminiStandIn]:
    """A stand-in listening on 127.0.0.1 (a free port) in a background thread, for the ``with`` block."""
    standin = GeminiStandIn() if reply is None else GeminiStandIn(reply=reply)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(standin))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    standin.base_url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        yield standin
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
