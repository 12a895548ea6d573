"""The start of a worker process that runs app code away from the server's interpreter lock
(chat/import_export/export_process.py). Imports nothing of the app: a spawned process unpickles this before
Django is set up, and the app's modules need Django ready."""

from __future__ import annotations

import os

import django


def django_ready() -> None:
    # The server's environment is inherited (data folder, database, secret key).
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "personalab.settings")
    django.setup()
