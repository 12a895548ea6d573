"""Documents read back from the keyword store, for lines Chroma does not hold yet.

An imported chat's lines are in the keyword store at once and embedded into Chroma minutes
later (memory/vectors/fill.py); a keyword hit on such a line is still shown: its text and metadata
are the newest entry of its id in the instance's keyword log (memory/keyword_index/store.py).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

# SQLite's limit on bound parameters is 999 in older builds.
_IDS_PER_QUERY = 500


def keyword_documents(path: Path, collection: str, doc_ids: list[str]
                      ) -> dict[str, tuple[str, dict[str, Any]]]:
    """doc_id -> (text, metadata) of those of `doc_ids` the keyword file at `path` holds."""
    if not doc_ids or not path.exists():
        return {}
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
    try:
        for start in range(0, len(doc_ids), _IDS_PER_QUERY):
            batch = doc_ids[start:start + _IDS_PER_QUERY]
            marks = ",".join("?" * len(batch))
            rows = db.execute(
                "SELECT doc_id, text, metadata FROM log WHERE seq IN (SELECT MAX(seq) FROM log "
                f"WHERE collection = ? AND doc_id IN ({marks}) GROUP BY doc_id)",
                [collection, *batch]).fetchall()
            for doc_id, text, metadata in rows:
                if text is not None:  # NULL: deleted
                    found[doc_id] = (text, json.loads(metadata))
    except sqlite3.OperationalError:  # a file its writer is creating right now
        return found
    finally:
        db.close()
    return found
