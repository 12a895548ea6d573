"""Each test file's seconds in a run of the suite, heaviest first, from the run's JUnit XML;
`--write` keeps them in tests/durations.json, the order `make test` hands files to its workers
(tests/file_order.py). Run after adding or growing a slow file:

    .venv/bin/python -m pytest -n auto --dist loadfile -p no:cacheprovider --junitxml=/tmp/suite.xml
    .venv/bin/python bench/test_durations.py /tmp/suite.xml --write
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.file_order import DURATIONS_PATH  # noqa: E402


def file_seconds(junit: Path) -> Counter:
    seconds: Counter = Counter()
    for case in ElementTree.parse(junit).iter("testcase"):
        # classname "tests.e2e.test_chat_ui" or "tests.e2e.test_chat_ui.TestSomething"
        module = [part for part in case.get("classname", "").split(".") if not part[:1].isupper()]
        seconds["/".join(module) + ".py"] += float(case.get("time") or 0)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", type=Path, help="the run's --junitxml file")
    parser.add_argument("--write", action="store_true", help=f"update {DURATIONS_PATH.name}")
    args = parser.parse_args()
    seconds = file_seconds(args.junit)
    for path, spent in seconds.most_common(25):
        print(f"{spent:8.1f} s  {path}")
    print(f"{sum(seconds.values()):8.1f} s  in {len(seconds)} files")
    if args.write:
        DURATIONS_PATH.write_text(json.dumps(
            {path: round(spent, 1) for path, spent in seconds.most_common()}, indent=0) + "\n")
        print(f"written: {DURATIONS_PATH.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
