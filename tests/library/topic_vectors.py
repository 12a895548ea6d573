"""A stand-in embedding model for the vectorized-lore tests: texts about a dragon point one
way, everything else another."""

from __future__ import annotations

import numpy as np

DIM = 384


def _unit(index: int) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[index] = 1.0
    return vector


def topic_vector(text: str) -> np.ndarray:
    return _unit(0) if "dragon" in text.lower() else _unit(1)
