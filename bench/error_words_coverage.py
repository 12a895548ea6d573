"""How many of the refusals the REST API can give reach a 中文 reader in Chinese.

The sites and how each one is counted: tests/error_sites.py (tests/api/test_error_words_reach.py
holds the English-only ones to a list).

    .venv/bin/python bench/error_words_coverage.py [--list]
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "personalab.settings")

from tests.error_sites import site_states  # noqa: E402


def main() -> None:
    listing = "--list" in sys.argv
    rows = site_states()
    counts = Counter(state for *_, state in rows)
    if listing:
        for path, line, label, text, state in rows:
            if state not in ("zh", "said"):
                print(f"{state:8} {path}:{line} {label}({text!r})")
    print(f"AppError sites reachable from the REST API: {len(rows)}; said in 中文: "
          f"{counts['zh'] + counts['said']} ({counts['said']} by gettext where raised); "
          f"English only: {counts['english']}; passing on another error's words: "
          f"{counts['passed']}; message built at run time: {counts['built']}")


if __name__ == "__main__":
    main()
