"""Remove deleted library items kept in the trash longer than PERSONALAB_TRASH_DAYS (or
--older-than-days), as a server does at its start and daily (library/trash_retention.py)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from library.trash_retention import trash_purge_old
from personalab.storage import get_store


class Command(BaseCommand):
    help = ("Remove deleted characters, backgrounds, lorebooks and personas kept in the trash "
            "longer than PERSONALAB_TRASH_DAYS (or --older-than-days); they can no longer be "
            "restored.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--older-than-days", type=int, default=None, metavar="N",
                            help="Remove what was deleted more than N days ago (0: everything "
                                 "in the trash). Default: PERSONALAB_TRASH_DAYS.")
        parser.add_argument("--dry-run", action="store_true",
                            help="Only list what would be removed.")

    def handle(self, *args, **options) -> None:
        days = options["older_than_days"]
        if days is None:
            days = settings.PERSONALAB_TRASH_DAYS
            if days == 0:
                self.stdout.write("PERSONALAB_TRASH_DAYS=0 keeps the trash for ever: nothing "
                                  "removed (--older-than-days N removes older items anyway).")
                return
        if days < 0:
            raise CommandError("--older-than-days must be 0 or more.")
        purged = trash_purge_old(get_store(), days=days, dry_run=options["dry_run"])
        for name in purged:
            self.stdout.write(f"  {name}")
        done = "would be removed" if options["dry_run"] else "removed"
        self.stdout.write(f"{len(purged)} deleted item(s) older than {days} day(s) {done}.")
