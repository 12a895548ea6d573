"""One error base for the whole app: every refusal a user can cause is an `AppError`.

`AppError(message, *, code, status, fields)` (or `field=` for one wrong value); the subclasses below only set `code` and
`status`, and every app error (LibraryError, StoreError, HistoryError, ...) stands on one of
them. The API turns it into `{"error": {"code", "message", "fields"}}` with `status`
(personalab/api.py); pages show `message` (personalab/middleware.py). `fields` names the
request fields at fault (field -> what is wrong with it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

View = TypeVar("View", bound=Callable[..., Any])


class AppError(Exception):
    code: str = "error"
    status: int = 400

    def __init__(self, message: str = "", *, code: str | None = None, status: int | None = None,
                 fields: dict[str, str] | None = None, field: str | None = None,
                 **extra: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.message = message
        # `field="name"` is short for `fields={"name": message}`: one wrong value.
        self.fields = dict(fields or ({field: message} if field else {}))
        # More keys for the error object (trace_id of a refused turn, candidate instances, ...).
        self.extra = extra

    def as_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "fields": self.fields,
                          **self.extra}}


class Invalid(AppError):
    """A request value is wrong; `fields` names it."""

    code, status = "invalid", 400


class NotFound(AppError):
    """Missing, or not visible to this account: both look the same."""

    code, status = "not_found", 404


class Forbidden(AppError):
    """Visible, but this account may not do that."""

    code, status = "forbidden", 403


class Conflict(AppError):
    """Clashes with what is there (an id taken, a busy instance, an item in use)."""

    code, status = "conflict", 409


class Busy(AppError):
    """Too much running at once for this account; try again when one finishes."""

    code, status = "busy", 429


class Unavailable(AppError):
    """A service the request needs (the lock service, an export worker) is not answering."""

    code, status = "unavailable", 503


class TooLarge(AppError):
    code, status = "too_large", 413

    def __init__(self, message: str = "request body is too large", **kwargs: Any) -> None:
        super().__init__(message, **kwargs)


# What one account (or one chat) may hold, by kind: the sentence an API client reads (pages say
# it in the reader's language: personalab/limit_words.py). {limit} and {setting} filled in.
LIMIT_SENTENCES = {
    "personas": "you have {limit} personas, the most one account may have ({setting}): "
                "delete one to make another",
    "characters": "you have {limit} characters, the most one account may have ({setting}): "
                  "delete one to make another",
    "backgrounds": "you have {limit} backgrounds, the most one account may have ({setting}): "
                   "delete one to make another",
    "lorebooks": "you have {limit} lorebooks, the most one account may have ({setting}): "
                 "delete one to make another",
    "instances": "you have {limit} chats, the most one account may have ({setting}): no more "
                 "can be started; the site's administrator can raise it",
    "sessions": "this chat has {limit} sessions (archived ones count: they are kept), the most "
                "one chat may have ({setting}): start a new chat to go on",
}


class LimitReached(Forbidden):
    """An account (or a chat) holds as many of `kind` as the site allows; nothing was made.
    The error object also carries `limit` and `setting` (the environment variable)."""

    code = "limit_reached"

    def __init__(self, *, kind: str, limit: int, setting: str) -> None:
        super().__init__(LIMIT_SENTENCES[kind].format(limit=limit, setting=setting),
                         limit=limit, setting=setting)
        self.kind, self.limit, self.setting = kind, limit, setting


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


def errors_back_to(url_name: str) -> Callable[[View], View]:
    """A page action whose refusal, when the browser sent no Referer, goes back to `url_name`
    (given the action's own URL arguments) with the message: the action's URL is POST-only."""
    def mark(view: View) -> View:
        view.errors_back_to = url_name  # type: ignore[attr-defined]
        return view
    return mark


# How a refusal reads in the reader's language. The words live on the API floor
# (personalab/error_words.py), which sets this when it is imported: the URL conf imports it, so
# it is set before any view runs. A page of a lower floor that shows a refusal itself (an htmx
# result, a form it re-renders) reads it through `error_read`.
_reader: list[Callable[[AppError], str]] = []


def error_reader_set(read: Callable[[AppError], str]) -> None:
    _reader[:] = [read]


def error_read(error: AppError) -> str:
    """`error`'s message in the active language, as the API and the pages' handler say it."""
    return _reader[0](error) if _reader else error.message
