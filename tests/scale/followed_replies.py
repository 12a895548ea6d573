"""A reply followed over a tab's socket, as the live-following tests read it: its text from the
events, and how long the idle-socket tests keep a socket idle under which Redis read timeout."""

from __future__ import annotations

# The Redis read timeout the idle-socket tests give the channel layer (30 s in production), and
# how long their sockets stay idle: long enough for several reads to time out and several health
# checks to run, as in an idle minute, had the settings been wrong.
IDLE_READ_TIMEOUT = 8.0
IDLE_SECONDS = 20.0


def followed_text(events: list[dict]) -> str:
    """The reply as a tab's events spell it: the text a `stream` event sets, then each token."""
    text = ""
    for event in events:
        if event["type"] == "stream":
            text = event["content"]
        elif event["type"] == "token":
            text += event["content"]
    return text
