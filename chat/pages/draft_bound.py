"""What a refused no-script form gives back to its box: the text as written up to a bound. A line
is refused past PERSONALAB_MAX_MESSAGE_CHARS, but the body may be 12 MB; echoed whole, one post
kept 12 MB in the login's session and drew it into every page of the chat that read it back."""

from __future__ import annotations

from django.conf import settings

# Room to cut a line too long down to size in the box; past it nothing sendable is lost.
TIMES_THE_LIMIT = 4


def draft_bounded(text: str) -> str:
    """`text`, cut at 4 × the longest line a message may be."""
    return text[:TIMES_THE_LIMIT * settings.PERSONALAB_MAX_MESSAGE_CHARS]
