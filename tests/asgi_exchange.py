"""One HTTP request through an ASGI app, as a server hands it over (asgiref's communicator):
the body in the chunks given, the reply's start message and its whole body back."""

from __future__ import annotations

import asyncio
from typing import Any

from asgiref.testing import ApplicationCommunicator


def asgi_exchange(app: Any, scope: dict[str, Any],
                  chunks: list[bytes] | None = None) -> tuple[dict[str, Any], bytes]:
    async def run() -> tuple[dict[str, Any], bytes]:
        communicator = ApplicationCommunicator(app, scope)
        sent = chunks or [b""]
        for number, chunk in enumerate(sent):
            await communicator.send_input({"type": "http.request", "body": chunk,
                                           "more_body": number < len(sent) - 1})
        start = await communicator.receive_output(10)
        body = b""
        while True:
            part = await communicator.receive_output(10)
            body += part.get("body", b"")
            if not part.get("more_body"):
                break
        await communicator.wait(10)
        return start, body
    return asyncio.run(run())
