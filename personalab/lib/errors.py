"""One error base for the whole app: every refusal a user can cause is an `AppError`.

The API turns it into `{"error": {"code", "message", "fields"}}` with `status`; pages show
`message`. `fields` names the request fields at fault (field -> what is wrong with it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class AppError(Exception):
    code: str = "error"
    status: int = 400

    def __init__(self, code: str | None = None, status: int | None = None, message: str = "",
                 fields: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.message = message
        self.fields = dict(fields or {})
        # More keys for the error object (trace_id of a refused turn, candidate instances, ...).
        self.extra = extra

    def as_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "fields": self.fields,
                          **self.extra}}


class Invalid(AppError):
    """A request value is wrong; `field` names it."""

    def __init__(self, field: str, message: str, *, code: str = "invalid") -> None:
        super().__init__(code, 400, message, {field: message})


class TooLarge(AppError):
    def __init__(self, message: str = "request body is too large") -> None:
        super().__init__("too_large", 413, message)


@contextmanager
def naming_field(field: str) -> Iterator[None]:
    """A refusal raised while looking up the value a request sent in `field` (an unknown or
    hidden character, background, ...) names that field, keeping its own status and words."""
    try:
        yield
    except AppError as exc:
        if not exc.fields:
            exc.fields = {field: exc.message}
        raise
