from __future__ import annotations

from django.core.management.base import BaseCommand

from chat.services.index import reindex_all
from memory.runtime import index_renewed
from memory.vectors.sync import index_rebuild
from personalab.storage import get_store


class Command(BaseCommand):
    help = "Rebuild every index row from the data files (and Chroma with --memory)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--memory", action="store_true",
                            help="also rebuild the Chroma collections from the text ledgers "
                                 "and session files")

    def handle(self, *args, **options) -> None:
        store = get_store()
        counts = reindex_all(store)
        self.stdout.write("index rebuilt: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
        if options["memory"]:
            self.stdout.write("rebuilding Chroma from the ledgers and sessions…")
            index, renewed = index_renewed(store)
            if renewed:
                self.stdout.write(renewed)
            memory_counts = index_rebuild(index, store)
            self.stdout.write("memory rebuilt: " + ", ".join(
                f"{k}={v}" for k, v in memory_counts.items()))
