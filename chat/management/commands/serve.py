"""`make run` in one process: set up the data folder, then serve it with Daphne.

Run as five commands (migrate, bootstrap, seed_demo, reindex, daphne), each process imported and
set up Django again, and the page answered a minute after `make run` (docs/performance.md,
Start-up). Here the set-up steps share one start, Daphne serves from the same process, the
demo's recall index is left to the server's catch-up, and the embedding engines are built once
the server listens (personalab/asgi.py), so a newcomer opens the page as soon as it answers.

`manage.py serve` runs this under a small supervisor that starts it again if it dies
(personalab/lib/supervise.py, called by manage.py before Django loads); `--no-supervise` is
this command alone, for a deployment whose own supervisor restarts it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from functools import partial

from daphne.cli import CommandLineInterface
from daphne.server import Server
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connections

from chat.management.commands.account_records_split import split_report_write
from chat.management.commands.bootstrap import OWN_ADMIN, admin_ensure, login_text
from chat.services.index import index_empty
from personalab.lib.filestore.store import FileStore
from personalab.lib.process_age import process_age_seconds
from personalab.storage import get_store


class Command(BaseCommand):
    help = ("What `make run` does: migrate, the first admin, the demo, the index rows, then "
            "Daphne on HOST:PORT, all in one process.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--no-supervise", action="store_true",
                            help="Serve in this process, not restarted if it dies.")
        # Where the supervisor is told the server listens (a restart before that is a failed
        # start, not a crash).
        parser.add_argument("--ready-fd", type=int, default=None, help=argparse.SUPPRESS)

    def handle(self, *args, **options) -> None:
        # From the process's start: Python's and Django's own start is part of the wait.
        started = time.monotonic() - (process_age_seconds() or 0.0)
        self.stdout.write("Setting up the data folder (database, admin account, demo)…")
        call_command("migrate", interactive=False, verbosity=0)
        # A data folder from an older version: no account's record is read from a shared
        # module file again (personalab/lib/filestore/account_modules.py).
        split_report_write(get_store(), out=self.stdout, err=self.stderr, quiet=True)
        # A new database for a data folder with items in it (rebuilt from the files): their
        # owners come back first, so the first admin is the files' own `admin` (admin_ensure)
        # and each owner is offered what it deleted (library/trash_owners.py).
        if index_empty() and _items_in(get_store()):
            call_command("reindex", stdout=self.stdout)
        admin_found = admin_ensure()
        # The catch-up (every server's start) indexes the demo's lines for recall after the
        # server listens; with it off, the demo is indexed here as before.
        call_command("seed_demo", no_memory=settings.PERSONALAB_INDEX_CATCHUP_SECONDS > 0,
                     stdout=self.stdout)
        call_command("reindex", stdout=self.stdout)
        if not admin_found:
            self.stdout.write(OWN_ADMIN)
        # Read now: this thread becomes the event loop's, where the ORM refuses.
        login = login_text()
        # The set-up's connections belong to this thread, which becomes the event loop's.
        connections.close_all()
        self.stdout.write(f"Starting the server ({time.monotonic() - started:.1f} s so far)…")
        cli = CommandLineInterface()
        cli.server_class = partial(Server, ready_callable=partial(
            self._ready, started, login, options["ready_fd"]))
        cli.run(["-b", settings.SERVE_HOST, "-p", str(settings.SERVE_PORT),
                 "personalab.asgi:application"])

    def _ready(self, started: float, login: str, ready_fd: int | None = None) -> None:
        self.stdout.write(self.style.SUCCESS(
            f"\n  PersonaLab is ready ({time.monotonic() - started:.1f} s)." + login
            + "  Stop it with Ctrl-C.\n"))
        if ready_fd is not None:
            with contextlib.suppress(OSError):
                os.write(ready_fd, b"ready\n")
                os.close(ready_fd)


def _items_in(store: FileStore) -> bool:
    """Items live or in the trash (an owner all of whose items are deleted)."""
    trash = store.root / "trash"
    return any((store.character_ids(), store.background_ids(), store.lorebook_ids(),
                store.persona_ids(), store.instance_ids(),
                trash.is_dir() and any(path.is_dir() and any(path.iterdir())
                                       for path in trash.iterdir())))
