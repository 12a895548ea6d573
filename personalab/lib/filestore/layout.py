"""What the variable files need of a FileStore: its folder, its lock factory and where a chat's
sessions lie. The store's session half calls the variable room, so that room names this shape
instead of importing the store back."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from personalab.lib.locks import LockFactory


class StoreLayout(Protocol):
    root: Path
    lock_factory: LockFactory

    def sessions_dir(self, instance_id: str) -> Path: ...
