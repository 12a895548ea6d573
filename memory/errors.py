"""The memory app's error: a memory action that was refused or failed, nothing changed."""

from __future__ import annotations

from typing import Any

from personalab.lib.errors import AppError


class MemoryActionError(AppError):
    """A memory action that was refused or failed; nothing was changed."""

    code, status = "unusable_llm_output", 422

    def __init__(self, message: str, *, detail: str = "", code: str | None = None,
                 status: int | None = None, fields: dict[str, str] | None = None,
                 **extra: Any) -> None:
        super().__init__(message, code=code, status=status, fields=fields, **extra)
        self.detail = detail
