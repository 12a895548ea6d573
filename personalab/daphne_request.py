"""Daphne's request, bounded: Twisted neither parses a form body nor keeps one over the limit.

Twisted's Request parses a multipart POST whole (the `email` package, in the reactor thread that
serves every connection) before Daphne hands the body on, and Daphne never reads what it
parsed: one anonymous 100 MB post held every account's page loads for 1.6 s, four 250 MB ones
for 6.8 s, even with the body refused by personalab/body_limit.py. Twisted also keeps the whole
body (in a temporary file) and Daphne queues all of it for the app. This request turns the
parsing off (Twisted's own `parsePOSTFormSubmission` switch, which Daphne leaves on), drops a
body's bytes past the allowance as they arrive, and answers 413 without starting the app.
`daphne_requests_bound()` puts it in place before the server takes connections (Daphne looks up
its request class when it builds each connection's protocol).
"""

from __future__ import annotations

from typing import Any

from daphne import http_protocol

from personalab.body_limit import body_max_bytes, request_language, too_large_reply


class BoundedWebRequest(http_protocol.WebRequest):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["parsePOSTFormSubmission"] = False
        super().__init__(*args, **kwargs)
        self.body_received = 0
        self.body_refused = False

    def gotLength(self, length: int | None) -> None:
        cookie = b"; ".join(self.requestHeaders.getRawHeaders(b"cookie") or [])
        self.body_limit = body_max_bytes(
            cookie=cookie.decode("latin-1"),
            authorization=self.requestHeaders.hasHeader(b"authorization"))
        # A body declared too large is never stored, not even in a temporary file.
        self.body_refused = length is not None and length > self.body_limit
        super().gotLength(0 if self.body_refused else length)

    def handleContentChunk(self, data: bytes) -> None:
        self.body_received += len(data)
        self.body_refused = self.body_refused or self.body_received > self.body_limit
        if not self.body_refused:
            super().handleContentChunk(data)

    def process(self) -> Any:
        if not self.body_refused:
            return super().process()
        referer = (self.requestHeaders.getRawHeaders(b"referer") or [b""])[0]
        cookie = b"; ".join(self.requestHeaders.getRawHeaders(b"cookie") or [])
        accepted = (self.requestHeaders.getRawHeaders(b"accept-language") or [b""])[0]
        content_type, body = too_large_reply(
            self.body_limit, path=self.path.decode("latin-1"), referer=referer.decode("latin-1"),
            language=request_language(cookie=cookie.decode("latin-1"),
                                      accepted=accepted.decode("latin-1")))
        self.handle_reply({"type": "http.response.start", "status": 413,
                           "headers": [(b"Content-Type", content_type)]})
        self.handle_reply({"type": "http.response.body", "body": body})
        return None


def daphne_requests_bound() -> None:
    """Daphne builds each connection's requests with BoundedWebRequest from now on."""
    http_protocol.WebRequest = BoundedWebRequest
