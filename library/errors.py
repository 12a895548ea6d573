"""Refusals of library actions, each with the HTTP status a page or the API answers with.
Kept apart from services.py so selectors.py (which services.py uses) can raise them too."""

from __future__ import annotations

from personalab.lib.errors import Conflict, Forbidden, Invalid, NotFound


class LibraryError(Invalid, ValueError):
    code = "invalid"

    def __init__(self, message: str, field_errors: dict[str, str] | None = None):
        super().__init__(message=message, fields=field_errors)
        self.field_errors = self.fields


class LibraryNotFound(LibraryError, NotFound, LookupError):
    """Missing, or not visible to this account: both look the same."""

    code, status = "not_found", 404


class LibraryForbidden(LibraryError, Forbidden):
    """Visible, but only its owner or staff may change it."""

    code, status = "forbidden", 403


class LibraryConflict(LibraryError, Conflict):
    """Create never overwrites (SPEC §10), and what is in use is not deleted."""

    code, status = "exists", 409

    def __init__(self, message: str, field: str | None = "persona_id"):
        super().__init__(message, {field: "already exists"} if field else None)


class LorebookChanged(LibraryError, Conflict):
    """The book was saved elsewhere (another tab, device or author) since the editor showed it:
    saving would silently undo that save."""

    code, status = "changed", 409


class ItemChanged(LibraryError, Conflict):
    """A character or background saved elsewhere (another tab, device or author) since the
    editor showed it: saving would silently undo that save."""

    code, status = "changed", 409


class ItemWithheld(Forbidden):
    """A chat's character or background whose author made it private (or deleted it) and of
    which the chat kept no copy: it is not played, and nothing of the chat is lost."""

    code, status = "made_private", 403


class CopyNotKept(LibraryError):
    """A chat of another account could not keep its copy of an item being made private or
    deleted (a full disk): the change is refused and nothing is altered."""

    code, status = "storage_error", 507


class CardError(Invalid, ValueError):
    """A character card that cannot be read, naming the field."""

    code = "invalid_card"

    def __init__(self, message: str, field: str = "file") -> None:
        super().__init__(message=message, fields={field: message})


class PictureNotCard(CardError):
    """A PNG with no card in it: a picture (the character editor takes it as one)."""


class PictureImportedAsCard(LibraryError):
    """A PictureNotCard given to the library's card import: refused as any card is (same code
    and fields), so that its page can say how to make a character of the picture instead."""
