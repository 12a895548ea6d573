"""Move every account's record an older version left in a module's shared file
(data/modules/{module}.json) to the account's own file. `manage.py serve` does it at every start;
a deployment that starts its workers otherwise runs this once after an upgrade. Safe to run
again, or while the server runs: each account's record moves under the locks its saves take."""

from __future__ import annotations

from django.core.management.base import BaseCommand, OutputWrapper

from chat.account_records import account_records_split
from personalab.lib.filestore.store import FileStore
from personalab.storage import get_store


class Command(BaseCommand):
    help = ("Move the account records left in the modules' shared files to a file per "
            "account, and name any file that could not be read.")

    def handle(self, *args, **options) -> None:
        split_report_write(get_store(), out=self.stdout, err=self.stderr)


def split_report_write(store: FileStore, *, out: OutputWrapper, err: OutputWrapper,
                       quiet: bool = False) -> None:
    """Move the records and say what moved per module; `quiet` names only a module where
    something moved or could not be read (a server's start, where nothing is the rule)."""
    for module, split in account_records_split(store).items():
        if split.moved or split.superseded or not quiet:
            out.write(f"{module}: {_records(split.moved)} moved to a file per account"
                      + (f", {_records(split.superseded)} left behind dropped (the account's "
                         "own file is newer)" if split.superseded else ""))
        for why in split.unreadable.values():
            err.write(f"{module}: {why}; left as it was (mend it and run this again)")


def _records(count: int) -> str:
    return f"{count} account record" + ("" if count == 1 else "s")
