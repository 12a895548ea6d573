"""What filling the macros of a 1 MB card field costs (personalab/lib/macros.py): plain text,
plain text with `<`, 1 MB of `{{user}}`, prose with 2,000 `{{user}}`, and `{{random}}`s, each the
first fill and a fill again with the same names' values (a card field is filled several times
in every turn).

    .venv/bin/python bench/macro_fill.py [--reps 3]

Prints the best of --reps of each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from personalab.lib.macros import macros_replace

try:
    from personalab.lib.macro_fills import macro_fills_forget
except ImportError:  # the code before fills were kept, run for comparison
    def macro_fills_forget() -> None:
        pass

WORDS = "The old lighthouse keeper kept notes about every ship. "
PLAIN = WORDS * (1_000_000 // len(WORDS))
CASES = {"plain": PLAIN, "plain with <": PLAIN.replace("every", "<every", 3000),
         "{{user}} only": "{{user}}" * 125_000,
         "prose, 2,000 names": PLAIN.replace("every ship", "{{user}}'s ship", 2000),
         "{{random}}s": "{{random:a,b}} {{user}}" * 40_000}
VALUES = {"user": "Ann", "char": "Mira"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    for name, text in CASES.items():
        first, again = [], []
        for _ in range(args.reps):
            macro_fills_forget()
            started = time.perf_counter()
            macros_replace(text, VALUES)
            first.append(time.perf_counter() - started)
            started = time.perf_counter()
            macros_replace(text, {**VALUES, "lastMessage": "x"})
            again.append(time.perf_counter() - started)
        print(f"{name:20} {len(text) / 1e6:.2f} MB: first {min(first) * 1000:7.1f} ms, "
              f"again {min(again) * 1000:7.1f} ms", flush=True)


if __name__ == "__main__":
    main()
