from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings

from library.lore import vector_store as lore_vector_store
from personalab.lib.embedding import embeddings, give_way, threads


class MemoryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memory"

    def ready(self) -> None:
        # The embedding engines stay framework-free (benchmarks use them without Django): they
        # get their settings, parsed once in personalab/settings.py, here at start-up.
        embeddings.MAX_PASSAGE_CHARS = settings.PERSONALAB_EMBED_MAX_CHARS
        threads.THREADS = settings.PERSONALAB_EMBED_THREADS
        embeddings.LINES_ONCE = settings.PERSONALAB_EMBED_LINES_ONCE
        embeddings.LINES_ONCE_FROM = settings.PERSONALAB_EMBED_LINES_ONCE_FROM
        give_way.GIVE_WAY_SECONDS = settings.PERSONALAB_FILL_GIVE_WAY_SECONDS
        # Lore is embedded in library/ (a floor below), when a book is saved: it gets the model
        # here. The name keys the vectors on disk: another model or cut is another folder.
        lore_vector_store.embedder_install(
            name=f"{embeddings.EMBEDDING_NAME}-{embeddings.DEFAULT_VARIANT}"
                 f"-{embeddings.MAX_PASSAGE_CHARS}",
            # Looked up at each call, so a test that patches the embeddings module is obeyed.
            embed_passages=lambda texts: embeddings.embed_passages(texts),
            max_chars=embeddings.MAX_PASSAGE_CHARS)
