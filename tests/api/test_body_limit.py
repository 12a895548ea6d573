"""A request body over what the app takes is refused before Django parses it
(personalab/body_limit.py): a multipart body was parsed whole on the thread every page shares,
before the upload's own size checks, so large anonymous posts stalled every account."""

from __future__ import annotations

import json
from importlib import import_module

import pytest
from daphne import http_protocol
from daphne.http_protocol import HTTPFactory
from django.conf import settings
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from chat.models import ApiToken
from personalab.asgi import application
from personalab.body_limit import ANONYMOUS_MAX_BYTES, BodyLimit
from personalab.daphne_request import BoundedWebRequest
from personalab.request_login import request_signed_in
from tests.asgi_exchange import asgi_exchange

SIGNED_IN = (b"cookie", f"csrftoken=x; {settings.SESSION_COOKIE_NAME}=abc".encode())


def _scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict:
    return {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(),
            "query_string": b"", "headers": [(b"host", b"testserver"), *headers],
            "scheme": "http", "server": ("testserver", 80), "client": ("127.0.0.1", 5000),
            "http_version": "1.1", "asgi": {"version": "3.0"}}


def _exchange(app, scope: dict, chunks: list[bytes]) -> tuple[int, bytes]:
    start, body = asgi_exchange(app, scope, chunks)
    return start["status"], body


class _Recording:
    """An app that reads the whole body and answers 200 with its length."""

    def __init__(self) -> None:
        self.called = False

    async def __call__(self, scope, receive, send):  # noqa: ANN001 — an ASGI app
        self.called = True
        size = 0
        while True:
            message = await receive()
            size += len(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": str(size).encode()})


def test_an_anonymous_body_over_its_allowance_is_refused_unread():
    app = _Recording()
    length = str(ANONYMOUS_MAX_BYTES + 1).encode()
    status, body = _exchange(BodyLimit(app), _scope("/api/v1/chat", [(b"content-length", length)]),
                             [b"x"])
    assert status == 413 and not app.called
    assert json.loads(body)["error"]["code"] == "too_large"


def test_a_page_forms_upload_over_the_limit_gets_a_page_with_a_way_back():
    app = _Recording()
    length = str(settings.PERSONALAB_REQUEST_MAX_BYTES + 1).encode()
    status, body = _exchange(BodyLimit(app), _scope("/library/cards/upload", [
        SIGNED_IN, (b"content-length", length),
        (b"referer", b"http://testserver/library/?q=<b>")]), [b"x"])
    page = body.decode()
    assert status == 413 and not app.called
    assert "The upload is larger than the 33 MB the app takes." in page
    assert '<a href="/library/?q=&lt;b&gt;">Back</a>' in page


def test_a_signed_in_upload_under_the_limit_reaches_the_app_whole():
    app = _Recording()
    size = ANONYMOUS_MAX_BYTES * 3
    status, body = _exchange(BodyLimit(app), _scope("/api/v1/characters/import", [
        SIGNED_IN, (b"content-length", str(size).encode())]), [b"x" * (size // 3)] * 3)
    assert (status, body) == (200, str(size).encode())


def test_a_signed_in_body_declared_over_the_largest_upload_is_refused():
    app = _Recording()
    length = str(settings.PERSONALAB_REQUEST_MAX_BYTES + 1).encode()
    status, body = _exchange(BodyLimit(app), _scope("/api/v1/characters/import", [
        SIGNED_IN, (b"content-length", length)]), [b"x"])
    assert status == 413 and not app.called
    assert "MB" in json.loads(body)["error"]["message"]


@pytest.mark.django_db(transaction=True)
def test_the_apps_chunked_body_that_grows_past_the_limit_is_cut_off_before_django_parses_it(
        settings):
    settings.PERSONALAB_REQUEST_MAX_BYTES = 1000
    chunks = [b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c.png\"\r\n\r\n",
              b"\0" * 600, b"\0" * 600, b"\r\n--B--\r\n"]
    status, body = _exchange(application, _scope("/api/v1/characters/import", [
        _session_cookie(), (b"content-type", b"multipart/form-data; boundary=B")]), chunks)
    assert status == 413
    assert json.loads(body)["error"]["code"] == "too_large"


def _session_cookie() -> tuple[bytes, bytes]:
    """The cookie of a session the app holds (an empty one: the allowance asks only that it
    exists)."""
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session.create()
    return (b"cookie", f"{settings.SESSION_COOKIE_NAME}={session.session_key}".encode())


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("login, allowed", [
    ("made-up cookie", False), ("made-up token", False), ("session", True), ("token", True)])
def test_a_body_past_the_anonymous_allowance_needs_a_real_login(alice, login, allowed):
    """A made-up `sessionid` or bearer token earned the signed-in allowance, so anonymous
    clients sent 32 MB bodies that Django read whole (red team)."""
    header = {"made-up cookie": SIGNED_IN, "session": _session_cookie(),
              "made-up token": (b"authorization", b"Bearer not-a-token"),
              "token": (b"authorization", f"Bearer {ApiToken.issue(alice)}".encode())}[login]
    app = _Recording()
    size = ANONYMOUS_MAX_BYTES * 3
    status, _ = _exchange(BodyLimit(app, signed_in=request_signed_in), _scope(
        "/api/v1/characters/import", [header, (b"content-length", str(size).encode())]),
        [b"x" * size])
    assert (status == 200, app.called) == (allowed, allowed)


class _Server:
    """What Daphne's request asks of its server, recording the app it would start."""

    server_name = "daphne"
    proxy_forwarded_address_header = None
    root_path = ""
    request_buffer_size = 8192

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def protocol_connected(self, protocol) -> None:  # noqa: ANN001
        pass

    def protocol_disconnected(self, protocol) -> None:  # noqa: ANN001
        pass

    def log_action(self, *args) -> None:  # noqa: ANN002
        pass

    def create_application(self, protocol, scope):  # noqa: ANN001
        server = self

        class Queue:
            def put_nowait(self, message) -> None:  # noqa: ANN001
                server.bodies.append(message.get("body", b""))
        return Queue()


def _daphne_exchange(request: bytes) -> tuple[bytes, _Server]:
    server = _Server()
    channel = HTTPFactory(server).buildProtocol(IPv4Address("TCP", "127.0.0.1", 5000))
    transport = StringTransport()
    channel.makeConnection(transport)
    channel.dataReceived(request)
    return transport.value(), server


def _multipart(size: int, *headers: bytes) -> bytes:
    body = (b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c.png\"\r\n\r\n"
            + b"\0" * size + b"\r\n--B--\r\n")
    return b"\r\n".join([b"POST /api/v1/characters/import HTTP/1.1", b"Host: testserver",
                         b"Content-Type: multipart/form-data; boundary=B",
                         b"Content-Length: " + str(len(body)).encode(), *headers, b"", body])


def test_daphne_takes_the_bounded_request_from_the_app_module():
    assert http_protocol.WebRequest is BoundedWebRequest


def test_daphne_refuses_an_anonymous_multipart_body_unstored_and_unparsed(monkeypatch):
    parsed = []
    monkeypatch.setattr("twisted.web.http._getMultiPartArgs",
                        lambda *args: parsed.append(args) or {})
    reply, server = _daphne_exchange(_multipart(ANONYMOUS_MAX_BYTES + 1))
    assert reply.startswith(b"HTTP/1.1 413 ") and b'"too_large"' in reply
    assert server.bodies == [] and parsed == []


def test_daphne_hands_a_signed_in_upload_to_the_app_whole_and_unparsed(monkeypatch):
    parsed = []
    monkeypatch.setattr("twisted.web.http._getMultiPartArgs",
                        lambda *args: parsed.append(args) or {})
    request = _multipart(3 * ANONYMOUS_MAX_BYTES, SIGNED_IN[0] + b": " + SIGNED_IN[1])
    reply, server = _daphne_exchange(request)
    assert reply == b"" and parsed == []
    assert b"".join(server.bodies) == request.split(b"\r\n\r\n", 1)[1]


def test_daphnes_413_is_said_in_the_requests_language():
    reply, _ = _daphne_exchange(_multipart(ANONYMOUS_MAX_BYTES + 1, b"Accept-Language: zh-CN"))
    assert reply.startswith(b"HTTP/1.1 413 ")
    assert json.dumps("请求内容太大；请先登录。").encode() in reply
