"""Whole JSON files: read with a size cap and a clear error, written atomically (temp, fsync,
rename), optionally keeping the previous version under history/ beside the file."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from personalab.lib.atomic import write_bytes_atomic
from personalab.lib.jsontext import json_loads
from personalab.lib.store_errors import CorruptFile, MissingFile

MAX_JSON_FILE_BYTES = 50 * 1024 * 1024


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_json_atomic(path: Path, data: Any) -> None:
    """Temp file in the same folder, fsync, rename: a crash leaves the old or the new file."""
    write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def json_keys_per_line(data: dict[str, Any]) -> str:
    """A JSON object with one top-level key per line and each value on one line.

    Readable enough to open in an editor, and serialised by json's C encoder (an `indent`
    makes json fall back to its pure-Python encoder, ten times slower on a long trace)."""
    items = ",\n".join(
        f"  {json.dumps(str(key), ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)}"
        for key, value in data.items())
    return "{\n" + items + "\n}\n" if items else "{}\n"


def write_text_atomic(path: Path, payload: str, *, durable: bool = True) -> None:
    write_bytes_atomic(path, payload.encode("utf-8"), durable=durable)


def read_json(path: Path, *, what: str) -> Any:
    try:
        if path.stat().st_size > MAX_JSON_FILE_BYTES:
            raise CorruptFile(path, "file is larger than 50 MB")
        return json_loads(path.read_bytes())
    except FileNotFoundError:
        raise MissingFile(path, what) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CorruptFile(path, f"not valid JSON ({exc})") from None



def keep_previous(path: Path) -> Path | None:
    """Copy a file about to be replaced into `history/` beside it (`definition.{stamp}.json`),
    as session edits do: a change to a definition never loses the previous one."""
    if not path.is_file():
        return None
    backup_dir = path.parent / "history"
    backup_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    backup = backup_dir / f"{path.stem}.{stamp}{path.suffix}"
    try:
        shutil.copy2(path, backup)
    except BaseException:
        backup.unlink(missing_ok=True)
        raise
    return backup


def write_json_keeping_previous(path: Path, data: Any) -> None:
    """write_json_atomic after keep_previous; a write that fails (a full disk) leaves no
    backup behind, so a refused change changes nothing."""
    backup = keep_previous(path)
    try:
        write_json_atomic(path, data)
    except BaseException:
        if backup is not None:
            backup.unlink(missing_ok=True)
        raise
