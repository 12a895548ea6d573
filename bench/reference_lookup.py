"""What the director's privacy scope costs: listing the same owner's other instances of the same
story (memory/selectors.reference_instance_ids) on a fallback-reminder turn.

    .venv/bin/python bench/reference_lookup.py [--instances 1000] [--owners 50] [--repeat 5]

Writes --instances instance_state.json files (owners round-robin) in a temp folder, then times
the first lookup (every file read) and the median of the next --repeat ones (only files that
changed are read again; the folder is still listed and every file stat-ed).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.selectors import reference_instance_ids  # noqa: E402
from personalab.lib.filestore.store import FileStore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--owners", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    store = FileStore(Path(tempfile.mkdtemp()))
    for number in range(args.instances):
        store.instance_state_write(f"inst_{number:05d}", {
            "current_session_id": "sess_001", "owner": f"user{number % args.owners}",
            "character_id": "char_a", "background_id": "bg_a", "plot_state": {}})
    state = store.instance_state_read("inst_00000")
    times = []
    for _ in range(args.repeat + 1):
        started = time.perf_counter()
        found = reference_instance_ids(store, instance_id="inst_00000", instance_state=state)
        times.append((time.perf_counter() - started) * 1000)
    print(f"{args.instances} instances, {len(found)} of the same owner and story: "
          f"first lookup {times[0]:.1f} ms, then median {statistics.median(times[1:]):.1f} ms")


if __name__ == "__main__":
    main()
