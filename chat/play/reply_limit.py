"""The reply length cap (PERSONALAB_MAX_REPLY_CHARS): a runaway model stops at the cap.

Without it a model that never stops (or a hostile endpoint) writes megabytes into the session
file, and every later turn is refused because the prompt can no longer hold the last reply.
"""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator


async def pieces_capped(pieces: AsyncIterator[str], *, limit: int,
                        flags: dict[str, Any]) -> AsyncIterator[str]:
    """Yield `pieces` until `limit` characters; then set flags["truncated"] and close the stream."""
    left = limit
    async with contextlib.aclosing(pieces):
        async for piece in pieces:
            if len(piece) > left:
                if piece[:left]:
                    yield piece[:left]
                flags["truncated"] = True
                return
            left -= len(piece)
            yield piece


def truncated_warning(limit: int) -> dict[str, Any]:
    return {"type": "warning", "category": "reply_truncated",
            "message": f"the reply reached the {limit:,} character limit and was cut there",
            "current_value": limit, "threshold": limit,
            "suggestion": "ask the character to continue, or raise PERSONALAB_MAX_REPLY_CHARS"}
