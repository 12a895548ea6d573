"""Where a command's CPU goes, by kind of process, on an otherwise quiet machine: every process
that appears while the command runs (its Chromium, the test Daphnes, Playwright's driver, the
pytest workers, servers that left its process tree) is read from /proc once a second; a process
counts with its last reading (one that lives under a second may be missed). Linux only.

    .venv/bin/python bench/suite_cpu.py -- .venv/bin/python -m pytest -n auto --dist loadfile

(issue 31: on two cores, 668 s of CPU in 380 s of the suite: Chromium 295 s, the pytest workers
202 s, the test Daphnes 112 s.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def processes() -> dict[tuple[int, str], tuple[str, float]]:
    """{(pid, start time): (name, CPU seconds so far)} of every process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        found[(int(entry.name), fields[19])] = (name, (int(fields[11]) + int(fields[12])) / TICKS)
    return found


def kind_of(pid: int, name: str) -> str:
    try:
        # Chromium's children rewrite their command line as one string with spaces.
        command = (Path("/proc") / str(pid) / "cmdline").read_text().replace("\0", " ").split()
    except OSError:
        return name
    line = " ".join(command)
    if name.startswith("chromium"):
        kind = next((arg[7:] for arg in command if arg.startswith("--type=")), "browser")
        return f"chromium {kind}"
    if name.startswith("python"):
        return ("daphne" if "daphne" in line else "chroma" if "chroma" in line
                else "pytest" if "pytest" in line or "exec(eval" in line else "python, other")
    return name


def main() -> None:
    command = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    if not command:
        sys.exit(__doc__)
    before = processes()
    started = time.monotonic()
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spent: dict[tuple[int, str], float] = {}
    kinds: dict[tuple[int, str], str] = {}
    while run.poll() is None:
        for key, (name, cpu) in processes().items():
            if key not in before:
                spent[key] = cpu
                kinds.setdefault(key, kind_of(key[0], name))
        time.sleep(1.0)
    wall = time.monotonic() - started
    by_kind: dict[str, float] = {}
    for key, cpu in spent.items():
        by_kind[kinds[key]] = by_kind.get(kinds[key], 0.0) + cpu
    total = sum(by_kind.values())
    print(f"exit {run.returncode}, {wall:.0f} s wall, {total:.0f} s CPU "
          f"({100 * total / wall:.0f} % of one core)")
    for kind, cpu in sorted(by_kind.items(), key=lambda item: -item[1])[:12]:
        print(f"{cpu:8.1f} s  {kind}")


if __name__ == "__main__":
    main()
