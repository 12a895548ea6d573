from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings


class MemoryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memory"

    def ready(self) -> None:
        # The embedding engines stay framework-free (benchmarks use them without Django): they
        # get their settings, parsed once in personalab/settings.py, here at start-up.
        from personalab.lib.embedding import embeddings, engine

        embeddings.MAX_PASSAGE_CHARS = settings.PERSONALAB_EMBED_MAX_CHARS
        engine.THREADS = settings.PERSONALAB_EMBED_THREADS
        embeddings.LINES_ONCE = settings.PERSONALAB_EMBED_LINES_ONCE
