"""What compiling a user's regex costs, with and without the bounds of personalab/lib/user_regex.py.

    python bench/regex_bounds.py            # each pattern in a fresh process: seconds and peak MB

"unbounded" is what a lore key cost before: the `regex` engine compiles it as given. "checked"
is what the app does now: the static check first, and only a pattern it passes is compiled.
"""

from __future__ import annotations

import json
import subprocess
import sys

PATTERNS = [r"\b(Amy|Eldoria|Shadowfang)\b", "[a-z]{1,5}", "(?:a{99}){99}", "(?:a{100}){100}",
            "(?:a{300}){300}", "(?:a{2000}){2000}"]

PROBE = r"""
import json, resource, sys, time
import regex
sys.path.insert(0, ".")
from personalab.lib.user_regex import PatternRefused, pattern_compile
source, mode = sys.argv[1], sys.argv[2]
started = time.perf_counter()
outcome = "compiled"
try:
    if mode == "checked":
        pattern_compile(source, regex.V0)
    else:
        regex.compile(source, regex.V0)
except PatternRefused as exc:
    outcome = "refused: " + str(exc)[:60]
print(json.dumps({"seconds": time.perf_counter() - started, "outcome": outcome,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    for source in PATTERNS:
        for mode in ("unbounded", "checked"):
            done = subprocess.run([sys.executable, "-c", PROBE, source, mode], capture_output=True,
                                  text=True, timeout=120)
            row = json.loads(done.stdout)
            print(f"{source[:28]:<30} {mode:<10} {row['seconds']*1000:9.1f} ms "
                  f"{row['peak_mb']:7.0f} MB peak  {row['outcome']}")


if __name__ == "__main__":
    main()
