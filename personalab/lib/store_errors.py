"""The file store's errors, worded for the person who has to fix them. Their own module so
the instance lock (locks.py) can raise InstanceBusy without importing the store."""

from __future__ import annotations

from pathlib import Path

from personalab.lib.errors import AppError, Conflict, NotFound


class StoreError(AppError):
    """A problem with the data folder, worded for the person who has to fix it."""

    code, status = "store_error", 500

    def __init__(self, message: str = "") -> None:
        super().__init__(message=message)


class MissingFile(StoreError, NotFound):
    code, status = "not_found", 404

    def __init__(self, path: Path, what: str):
        super().__init__(f"{what} is missing: {path}")
        self.path = path


class IdTaken(StoreError, Conflict):
    """An id asked for by name is taken (or no free id was found): a conflict, never a 500."""

    code, status = "exists", 409


class CorruptFile(StoreError):
    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path} cannot be read: {reason}")
        self.path = path


class InstanceBusy(StoreError, Conflict):
    code, status = "busy", 409

    def __init__(self, instance_id: str):
        super().__init__(
            f"instance {instance_id} is busy: a reply is streaming or another change is running; "
            "wait for it to finish"
        )
        self.instance_id = instance_id
