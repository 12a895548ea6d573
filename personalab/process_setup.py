"""The start of a worker process that runs app code away from the server's interpreter lock
(chat/import_export/export_process.py). Imports nothing of the app: a spawned process
unpickles this before Django is set up, and the app's modules need Django ready."""

from __future__ import annotations

import multiprocessing
import os
import threading

import django


def django_ready() -> None:
    # The server's environment is inherited (data folder, database, secret key).
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "personalab.settings")
    django.setup()


def worker_start() -> None:
    """Django set up, and the worker ends with the server that started it. A server killed
    outright (kill -9, an out-of-memory kill) never tells its pool to stop, and a worker
    waiting for its next job would wait, holding its memory, for ever."""
    django_ready()
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent,), name="ends-with-its-server",
                         daemon=True).start()


def _end_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()  # returns when the server's end of the pipe it started us with closes
    os._exit(0)
