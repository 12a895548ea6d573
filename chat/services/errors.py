"""The errors the chat services raise."""

from __future__ import annotations

from personalab.lib import errors


class NotFound(errors.NotFound, LookupError):
    code, status = "not_found", 404

    def __init__(self, message: str) -> None:
        super().__init__(message=message)


class InstanceUpdateError(errors.Invalid, ValueError):
    """A refused instance update; `fields` names each wrong field."""

    code = "invalid"

    def __init__(self, fields: dict[str, str]) -> None:
        super().__init__(message="; ".join(f"{name}: {problem}"
                                           for name, problem in fields.items()), fields=fields)
