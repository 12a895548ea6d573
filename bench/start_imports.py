"""What a server start costs before it serves: `import personalab.asgi` in a fresh interpreter,
as every Daphne worker, test server and browser-test module pays it (the test environment: no
embedding preload, no catch-up, a throwaway data folder).

    .venv/bin/python bench/start_imports.py [--runs 3]

Prints each run's wall and CPU seconds (user + sys of the child) and which heavy packages the
start loaded (openai and chromadb should not be among them: they load on first use), and ends
with `start_cpu_s median=… min=…`.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("openai", "chromadb", "onnxruntime", "tokenizers", "jinja2", "numpy")
PROBE = f"import sys, personalab.asgi; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"


def run_once(data_dir: str) -> tuple[float, float, str]:
    env = {**os.environ, "PERSONALAB_DATA_DIR": data_dir, "PERSONALAB_EMBED_PRELOAD": "0",
           "PERSONALAB_INDEX_CATCHUP_SECONDS": "0", "DJANGO_SETTINGS_MODULE": "personalab.settings"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, env=env, check=True,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cpus = []
    with tempfile.TemporaryDirectory() as data_dir:
        for number in range(1, args.runs + 1):
            wall, cpu, loaded = run_once(data_dir)
            cpus.append(cpu)
            print(f"run {number}: wall {wall:.2f} s, cpu {cpu:.2f} s, loaded: {loaded or '-'}")
    print(f"start_cpu_s median={statistics.median(cpus):.2f} min={min(cpus):.2f}")


if __name__ == "__main__":
    main()
