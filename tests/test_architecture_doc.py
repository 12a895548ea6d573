"""The front door stays true (issue 31): every file and folder that the "Where to change X"
tables (README.md, docs/architecture.md) send a newcomer to exists, so a module moved or
renamed without its row fails here rather than sending someone to search."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ("README.md", "docs/architecture.md")


def _table_paths(doc: str) -> list[str]:
    text = (ROOT / doc).read_text(encoding="utf-8")
    start = text.index("## Where to change X")
    table = text[start:text.find("\n## ", start + 1)]
    # `<app>/api/` stands for each app's folder: a pattern, not a path.
    return [name for name in re.findall(r"`([^`\s]+)`", table)
            if "/" in name and "<" not in name]


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_the_table_names_exists(doc):
    named = _table_paths(doc)
    assert len(named) > 20
    assert [name for name in named if not any(ROOT.glob(name.rstrip("/")))] == []
