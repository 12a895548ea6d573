"""An export worker (chat/import_export/export_process.py) ends with the server that started it:
a server killed outright (kill -9) never tells its pool to stop, and its workers, each holding
a Django app's memory, waited for their next export for ever, one pair more at every restart."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SERVER = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from personalab.process_setup import worker_start
if __name__ == "__main__":
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=worker_start)
    print(pool.submit(os.getpid).result(), flush=True)
    time.sleep(120)
"""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"  # a zombie has ended; its reaping is its new parent's business


def test_a_worker_ends_when_its_server_is_killed(tmp_path):
    env = {**os.environ, "PERSONALAB_DATA_DIR": str(tmp_path / "data"),
           "DJANGO_SETTINGS_MODULE": "personalab.settings", "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-c", SERVER], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, text=True)
    worker = 0
    try:
        worker = int(server.stdout.readline())
        assert _running(worker)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)
        deadline = time.monotonic() + 30  # a wait, not a speed check
        while _running(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(worker), "the export worker outlived its server"
    finally:
        server.kill()
        if worker and _running(worker):
            os.kill(worker, signal.SIGKILL)
