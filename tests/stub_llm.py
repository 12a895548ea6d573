"""A small OpenAI-compatible HTTP server for tests and benchmarks, speaking just enough of the API
for the real `openai` SDK: POST /v1/chat/completions and /v1/completions (text completion: a
`prompt` string; stream true/false; llama.cpp's own POST /completion is answered the same way)
and GET /v1/models. `paths` records each request's route.

Each request takes the next scripted step (FIFO); with the queue empty it gets the default reply.

    stub.script(Reply("hello", chunk_size=2), Fail(500, "boom"), Hang(30))

As a script (benchmarks):

    python tests/stub_llm.py --port 8100 --reply-tokens 4000 --delay 0

    --host HOST          address to bind (default 127.0.0.1)
    --port PORT          port to bind (default 8100; 0 picks a free one)
    --reply-tokens N     every reply is N pieces of "tok " (one token each; default 50)
    --delay SECONDS      pause before each piece (default 0)
"""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import threading
import time
import zlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

DEFAULT_TEXT = "stub reply"


@dataclass(frozen=True)
class Reply:
    text: str
    chunk_size: int = 4
    delay: float = 0.0  # before each piece; a whole answer waits as long as they would
    reasoning: str = ""  # streamed first, as `reasoning_content` deltas
    # Deltas in this order instead, ("reasoning" | "content", text) each, `delay` before each:
    # reasoning that comes after the reply began, or interleaved with it.
    deltas: tuple[tuple[str, str], ...] = ()
    # Streamed, after this many deltas the answer waits for `StubLLM.release()` (or a reset),
    # then sends the rest: a test looks at a reply mid-stream however slow the machine is,
    # without a stream made slow enough to be caught (seconds of every run's wall). Several
    # counts, (2, 10): it waits at each, one release each.
    held_after: int | tuple[int, ...] | None = None

    def holds(self) -> tuple[int, ...]:
        """The counts of deltas after which the answer waits for a release."""
        if self.held_after is None:
            return ()
        return (self.held_after,) if isinstance(self.held_after, int) else self.held_after

    def pieces(self) -> list[str]:
        size = max(1, self.chunk_size)
        return [self.text[i : i + size] for i in range(0, len(self.text), size)]


@dataclass(frozen=True)
class Fail:
    status: int = 500
    message: str = "boom"


@dataclass(frozen=True)
class Hang:
    """Headers (and for streams one empty chunk) sent, then silence."""

    seconds: float = 30


@dataclass(frozen=True)
class HangBeforeHeaders:
    seconds: float = 30


@dataclass(frozen=True)
class Empty:
    pass


@dataclass(frozen=True)
class Garbage:
    pass


@dataclass(frozen=True)
class LongLine:
    """Hostile: `before` as usual deltas, then one `data:` line of `size` bytes that never
    ends (a reply text with no newline, sent 64 KB at a time), then the connection closes."""

    size: int
    before: str = ""


@dataclass(frozen=True)
class Useless:
    """Hostile: `before` as usual deltas, then for `seconds` as fast as it can (or every
    `every` seconds) events that carry nothing: empty deltas, keep-alive comments, role-only
    chunks; then `[DONE]`. With `content`, endless one-character deltas instead."""

    seconds: float
    before: str = ""
    every: float = 0.0
    content: bool = False


@dataclass(frozen=True)
class BigBody:
    """Hostile, for a request that is not a stream: a JSON answer with `status` whose reply
    text is `size` bytes, sent 64 KB at a time with no Content-Length; with `gzip`, a gzip
    bomb of zeros instead (a few KB that unpack to `size` bytes), marked as such."""

    size: int
    status: int = 200
    gzip: bool = False


@dataclass(frozen=True)
class Trickle:
    """Hostile: a JSON answer that sends one byte every `every` seconds for `seconds`."""

    seconds: float
    every: float = 0.05


@dataclass(frozen=True)
class SlowHeaders:
    """Hostile: the status line and headers sent one byte every `every` seconds for `seconds`
    (each read well within any read timeout), then a good answer."""

    seconds: float
    every: float = 0.1


Step = (Reply | Fail | Hang | HangBeforeHeaders | Empty | Garbage | LongLine | Useless | BigBody
        | Trickle | SlowHeaders)


class StubLLM:
    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, default: Step = Reply(DEFAULT_TEXT)
    ) -> None:
        self.default = default
        self.requests: list[dict] = []
        self.paths: list[str] = []  # the route of each request, in order
        self.taken: list[Step] = []  # the step each request took, in order
        self.models = ["stub-model"]  # what GET /v1/models lists
        # Other routes answered, GET or POST (llama.cpp's /props, Ollama's /api/ps and /api/show)
        self.server_info: dict[str, dict] = {}
        self.authorizations: list[str] = []  # the Authorization header of each request
        self.disconnects = 0  # streams the client closed before the end
        self.answering = 0  # completion requests taken and not yet answered in full
        self._steps: deque[Step] = deque()
        self._model_steps: deque[Step] = deque()  # GET /v1/models: BigBody, Trickle, SlowHeaders
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._releases = 0  # `release()` calls no held answer has taken yet
        self._released = threading.Condition(self._lock)
        self._ids = itertools.count(1)
        self._server = _Server((host, port), _Handler)
        self._server.stub = self
        self.base_url = f"http://{host}:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def script(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    def scripted(self) -> list[Step]:
        """The steps no request has taken yet."""
        with self._lock:
            return list(self._steps)

    def script_models(self, *steps: Step) -> None:
        with self._lock:
            self._model_steps.extend(steps)

    def _take_models(self) -> Step | None:
        with self._lock:
            return self._model_steps.popleft() if self._model_steps else None

    def reset(self) -> None:
        with self._lock:
            self._steps.clear()
            self._model_steps.clear()
            self.requests.clear()
            self.paths.clear()
            self.taken.clear()
            self.models = ["stub-model"]
            self.server_info = {}
            self.authorizations.clear()
            self.disconnects = 0
            self._releases = 0
            woken, self._wake = self._wake, threading.Event()
        woken.set()
        with self._released:
            self._released.notify_all()

    def release(self) -> None:
        """Lets one held answer (`Reply(held_after=…)`) go on, now or when it gets there."""
        with self._released:
            self._releases += 1
            self._released.notify_all()

    def _hold(self, wake: threading.Event, seconds: float = 60) -> None:
        with self._released:
            self._released.wait_for(lambda: self._releases > 0 or wake.is_set(), timeout=seconds)
            if self._releases > 0:
                self._releases -= 1

    def stop(self) -> None:
        self._wake.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _take(self, body: dict, path: str = "") -> tuple[Step, threading.Event, int]:
        with self._lock:
            self.requests.append(body)
            self.paths.append(path)
            step = self._steps.popleft() if self._steps else self.default
            self.taken.append(step)
            self.answering += 1
            return step, self._wake, next(self._ids)

    def _answered(self) -> None:
        with self._lock:
            self.answering -= 1

    def _count_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    stub: StubLLM


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.0: the connection closes after each response, so streams need no chunked encoding.
    protocol_version = "HTTP/1.0"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self.server.stub.authorizations.append(self.headers.get("Authorization", ""))
            # A dict entry is sent as it is (a server reporting context_length, ...).
            models = [name if isinstance(name, dict) else
                      {"id": name, "object": "model", "created": 0, "owned_by": "stub"}
                      for name in self.server.stub.models]
            step = self.server.stub._take_models()
            if step is None:
                self._send_json(200, {"object": "list", "data": models})
                return
            exchange = _Exchange(self, {}, self.server.stub._wake, "models")
            try:
                if isinstance(step, SlowHeaders):
                    exchange.answer_slow_headers(step, json.dumps({"data": models}))
                else:
                    exchange.answer(step)
            except (BrokenPipeError, ConnectionResetError):
                self.server.stub._count_disconnect()
        elif self.path in self.server.stub.server_info:
            self._send_json(200, self.server.stub.server_info[self.path])
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        route = self.path.rstrip("/")
        if self.path in self.server.stub.server_info:
            self._send_json(200, self.server.stub.server_info[self.path])
            return
        if not route.endswith("/completions") and route != "/completion":  # llama.cpp's own
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.stub.authorizations.append(self.headers.get("Authorization", ""))
        step, wake, number = self.server.stub._take(body, route.removeprefix("/v1"))
        text = not route.endswith("/chat/completions")
        exchange = _Exchange(self, body, wake, f"{'cmpl' if text else 'chatcmpl'}-stub-{number}",
                             text=text)
        try:
            exchange.answer(step)
        except (BrokenPipeError, ConnectionResetError):
            self.server.stub._count_disconnect()
        finally:
            self.server.stub._answered()

    def _send_json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Exchange:
    def __init__(
        self, handler: _Handler, body: dict, wake: threading.Event, completion_id: str,
        text: bool = False,
    ) -> None:
        self.handler = handler
        self.text = text  # /v1/completions: `text` in each choice instead of a message
        self.stream = bool(body.get("stream"))
        self.model = str(body.get("model") or "stub-model")
        self.wake = wake
        self.id = completion_id

    def answer(self, step: Step) -> None:
        if isinstance(step, Fail):
            error = {"message": step.message, "type": "stub_error", "code": None}
            self.handler._send_json(step.status, {"error": error})
        elif isinstance(step, HangBeforeHeaders):
            self.wake.wait(step.seconds)
        elif isinstance(step, Garbage):
            self._begin("text/event-stream" if self.stream else "application/json")
            self._write("data: {this is not json\n\n" if self.stream else "{this is not json")
        elif isinstance(step, (LongLine, Useless)):
            self._answer_hostile(step)
        elif isinstance(step, (BigBody, Trickle)):
            self._answer_body_hostile(step)
        elif isinstance(step, SlowHeaders):
            self.answer_slow_headers(step, json.dumps({
                "id": self.id, "object": "chat.completion", "created": 0, "model": self.model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "late"}}]}))
        elif self.stream:
            self._answer_stream(step)
        else:
            self._answer_whole(step)

    def _answer_stream(self, step: Step) -> None:
        self._begin("text/event-stream")
        self._event(self._chunk({"role": "assistant", "content": ""}))
        if isinstance(step, Hang):
            self.wake.wait(step.seconds)
            return
        for sent, (key, text) in enumerate(self._deltas(step)):
            if isinstance(step, Reply) and sent in step.holds():
                self.handler.server.stub._hold(self.wake)
                if self.wake.is_set():
                    return
            if (key == "content" or step.deltas) and step.delay and self.wake.wait(step.delay):
                return
            self._event(self._chunk({key: text}))
        self._event(self._chunk({}, finish="stop"))
        self._write("data: [DONE]\n\n")

    def _answer_hostile(self, step: LongLine | Useless) -> None:
        self._begin("text/event-stream")
        for start in range(0, len(step.before), 4):
            self._event(self._chunk({"content": step.before[start:start + 4]}))
        if isinstance(step, LongLine):
            self._write('data: {"choices": [{"index": 0, "delta": {"content": "')
            block = "a" * 65536
            for _ in range(step.size // len(block)):
                if self.wake.is_set():
                    return
                self._write(block)
            return
        useless = [self._chunk({"content": ""}), self._chunk({"role": "assistant"}),
                   self._chunk({})]
        burst = "".join(f"data: {json.dumps(chunk)}\n\n: keep-alive\n\n" for chunk in useless)
        if step.content:
            burst = f"data: {json.dumps(self._chunk({'content': 'x'}))}\n\n"
        ends = time.monotonic() + step.seconds
        while time.monotonic() < ends and not self.wake.is_set():
            self._write(burst * (1 if step.every else 64))
            if step.every:
                self.wake.wait(step.every)
        self._write("data: [DONE]\n\n")

    def answer_slow_headers(self, step: SlowHeaders, body: str) -> None:
        """A JSON `body` behind headers that trickle (a stream request gets it too)."""
        out = self.handler.wfile
        for byte in b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nX-Slow: ":
            out.write(bytes([byte]))
            out.flush()
        ends = time.monotonic() + step.seconds
        while time.monotonic() < ends and not self.wake.wait(step.every):
            out.write(b"a")
            out.flush()
        out.write(b"\r\n\r\n" + body.encode())
        out.flush()

    def _answer_body_hostile(self, step: BigBody | Trickle) -> None:
        status = step.status if isinstance(step, BigBody) else 200
        self.handler.send_response(status)
        self.handler.send_header("Content-Type", "application/json")
        if isinstance(step, BigBody) and step.gzip:
            self.handler.send_header("Content-Encoding", "gzip")
            self.handler.end_headers()
            bomb = zlib.compressobj(9, zlib.DEFLATED, 31)
            zeros = bytes(1 << 20)
            for _ in range(step.size >> 20):
                self.handler.wfile.write(bomb.compress(zeros))
            self.handler.wfile.write(bomb.flush())
            return
        self.handler.end_headers()
        if isinstance(step, Trickle):
            ends = time.monotonic() + step.seconds
            while time.monotonic() < ends and not self.wake.wait(step.every):
                self._write(" ")
            return
        self._write('{"choices": [{"index": 0, "message": {"role": "assistant", "content": "')
        block = "a" * 65536
        for _ in range(step.size // len(block)):
            if self.wake.is_set():
                return
            self._write(block)
        self._write('"}, "finish_reason": "stop"}]}')

    @staticmethod
    def _deltas(step: Step) -> Iterator[tuple[str, str]]:
        """Lazily: a benchmark's pieces are made (and time-stamped) as they are sent."""
        if not isinstance(step, Reply):
            return
        if step.deltas:
            for kind, text in step.deltas:
                yield ("reasoning_content" if kind == "reasoning" else "content", text)
            return
        for start in range(0, len(step.reasoning), 4):
            yield ("reasoning_content", step.reasoning[start:start + 4])
        for piece in step.pieces():
            yield ("content", piece)

    def _answer_whole(self, step: Step) -> None:
        if isinstance(step, Hang):
            self._begin("application/json")
            self.wake.wait(step.seconds)
            return
        # A whole answer takes as long as its pieces would take to stream.
        if isinstance(step, Reply) and step.delay and self.wake.wait(
                step.delay * len(step.pieces())):
            return
        text = step.text if isinstance(step, Reply) else ""
        usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        if self.text:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": "stop"}
            self.handler._send_json(200, self._envelope("text_completion", choice, usage=usage))
            return
        message = {"role": "assistant", "content": text}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        self.handler._send_json(200, self._envelope("chat.completion", choice, usage=usage))

    def _chunk(self, delta: dict, finish: str | None = None) -> dict:
        if self.text:  # a text completion streams its text alone (a role or reasoning: nothing)
            text = delta.get("content") if isinstance(delta.get("content"), str) else ""
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}
            return self._envelope("text_completion", choice)
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return self._envelope("chat.completion.chunk", choice)

    def _envelope(self, kind: str, choice: dict, **extra: object) -> dict:
        head = {"id": self.id, "object": kind, "created": 0, "model": self.model}
        return {**head, "choices": [choice], **extra}

    def _begin(self, content_type: str) -> None:
        self.handler.send_response(200)
        self.handler.send_header("Content-Type", content_type)
        self.handler.send_header("Cache-Control", "no-cache")
        self.handler.end_headers()
        self.handler.wfile.flush()

    def _event(self, payload: dict) -> None:
        text = json.dumps(payload, ensure_ascii=False)
        if not text.isascii() and any("\ud800" <= char <= "\udfff" for char in text):
            text = json.dumps(payload)  # a lone surrogate goes as its escape, as JavaScript sends it
        self._write(f"data: {text}\n\n")

    def _write(self, text: str) -> None:
        self.handler.wfile.write(text.encode())
        self.handler.wfile.flush()


def refused_url() -> str:
    """A base_url on a port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="session")
def stub_llm_server() -> Iterator[StubLLM]:
    stub = StubLLM()
    yield stub
    stub.stop()


@pytest.fixture
def stub_llm(stub_llm_server: StubLLM) -> Iterator[StubLLM]:
    stub_llm_server.reset()
    yield stub_llm_server
    stub_llm_server.reset()


def main() -> None:
    parser = argparse.ArgumentParser(description="OpenAI-compatible stub server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--reply-tokens", type=int, default=50)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--long-line", type=int, default=0, metavar="BYTES",
                        help="hostile: every stream is one line of BYTES with no newline")
    parser.add_argument("--useless", type=float, default=0.0, metavar="SECONDS",
                        help="hostile: every stream sends empty deltas for SECONDS")
    args = parser.parse_args()
    reply: Step = Reply("tok " * args.reply_tokens, chunk_size=4, delay=args.delay)
    if args.long_line:
        reply = LongLine(args.long_line, before="before the line. ")
    elif args.useless:
        reply = Useless(args.useless, before="before the flood. ")
    stub = StubLLM(host=args.host, port=args.port, default=reply)
    print(f"stub LLM serving at {stub.base_url} (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        stub.stop()


if __name__ == "__main__":
    main()
