"""A local stand-in for an OpenAI-compatible server, so tests run the official openai client with no network.

It speaks ``POST /v1/chat/completions`` as OpenAI, Ollama, vLLM and llama.cpp do: one
``chat.completion`` JSON object, or with ``"stream": true`` server-sent ``chat.completion.chunk``
events (a role delta, content deltas, a finish chunk) ending in ``data: [DONE]``. Every request is
recorded, so a test can assert on what the SDK actually sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[str, str], str]
"""Given (system message, user message) the SDK sent, the reply text the stand-in returns."""


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    """Lower-cased names (HTTP header names are case-insensitive)."""
    body: dict[str, Any]

    def message(self, role: str) -> str:
        return "\n".join(m.get("content", "") for m in self.body.get("messages", []) if m.get("role") == role)

    @property
    def system(self) -> str:
        return self.message("system")

    @property
    def prompt(self) -> str:
        return self.message("user")


@dataclass
class OpenAIStandIn:
    reply: Reply = lambda system, prompt: "The documents don't say."
    status: int = 200
    """Answer every request with this status (an OpenAI error body when not 200), to test failures."""
    chunk_chars: int = 12
    delay_s: float = 0.0
    """Wait this long before answering, to test the client's timeout."""
    requests: list[Recorded] = field(default_factory=list)
    base_url: str = ""

    def completion(self, text: str, model: str) -> dict[str, Any]:
        return {
            "id": "chatcmpl-standin", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                         "logprobs": None}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    def chunk(self, delta: dict[str, Any], model: str, finish: str | None = None) -> dict[str, Any]:
        return {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}


def _handler(standin: OpenAIStandIn) -> type[BaseHTTPRequestHandler]:
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
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path != "/v1/chat/completions":
                self._send(404, json.dumps({"error": {"message": f"no route {self.path}", "type": "not_found"}
                                            }).encode())
                return
            time.sleep(standin.delay_s)
            rec = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            standin.requests.append(rec)
            if standin.status != 200:
                err = {"error": {"message": "stand-in refused the request", "type": "invalid_request_error",
                                 "code": str(standin.status)}}
                self._send(standin.status, json.dumps(err).encode())
                return
            model = body.get("model", "")
            text = standin.reply(rec.system, rec.prompt)
            if not body.get("stream"):
                self._send(200, json.dumps(standin.completion(text, model)).encode())
                return
            pieces = [text[i : i + standin.chunk_chars] for i in range(0, len(text), standin.chunk_chars)]
            chunks = [standin.chunk({"role": "assistant", "content": ""}, model)]
            chunks += [standin.chunk({"content": p}, model) for p in pieces]
            chunks.append(standin.chunk({}, model, finish="stop"))
            events = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
            self._send(200, events, "text/event-stream")

    return Handler


@contextmanager
def running_openai_standin(reply: Reply | None = None) -> Iterator[OpenAIStandIn]:
    """A stand-in listening on 127.0.0.1 (a free port) in a background thread; ``base_url`` ends in /v1."""
    standin = OpenAIStandIn() if reply is None else OpenAIStandIn(reply=reply)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(standin))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    standin.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield standin
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
