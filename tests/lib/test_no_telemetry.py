"""The embedding engine leaves no telemetry behind (ONNX Runtime's is on by default on Linux)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
REPO = Path(__file__).resolve().parents[2]
EMBED = ("from personalab.lib.embedding import embeddings\n"
         "assert embeddings.texts_embed(['where is the key'], is_query=True).shape[0] == 1\n")


def test_embedding_a_query_writes_no_telemetry_and_reports_nothing(tmp_path):
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    env.pop("ORT_DISABLE_TELEMETRY", None)
    subprocess.run([sys.executable, "-c", EMBED], env=env, check=True, timeout=300)
    assert not (tmp_path / ".cache" / "Microsoft").exists()
