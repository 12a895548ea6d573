"""A server builds its embedding engines as it starts serving, on a thread of its own
(personalab/server_start.py): built at the first embedding (a vectorized lorebook's save, a
recalled turn), the tokenizer held the interpreter lock for 1-3 s and every other account's
request waited (bench/cross_account.py, the vectors attack: 2.2 s). Without it, a process that
sets Django up does not import onnx (1.4 s of CPU) at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOADED = ("import sys, threading; from personalab.lib.embedding import embeddings; "
          "import personalab.asgi; from twisted.internet import reactor; "
          "reactor.callWhenRunning(reactor.stop); reactor.run(installSignalHandlers=False); "
          "[t.join() for t in threading.enumerate() if t.name == 'server-warm-up']; "
          "print(sorted(embeddings._models), 'onnx' in sys.modules)")


def _engines_after_start(tmp_path: Path, preload: str) -> str:
    env = {**os.environ, "PERSONALAB_EMBED_PRELOAD": preload,
           "PERSONALAB_DATA_DIR": str(tmp_path), "PERSONALAB_INDEX_CATCHUP_SECONDS": "0",
           "DJANGO_SETTINGS_MODULE": "personalab.settings", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", LOADED], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=300)
    return done.stdout.strip().splitlines()[-1]


def test_the_server_builds_the_embedding_engines_a_turns_recall_uses_as_it_starts(tmp_path):
    # e5's two and, with the second recall model on (the default), MiniLM: a turn's recall
    # waits for them (memory/runtime.py recall_warm)
    assert _engines_after_start(tmp_path, "1") == (
        "['minilm', 'original:passage', 'original:query'] True")
    # the tests' own servers skip it, and import no part of the engines
    assert _engines_after_start(tmp_path, "0") == "[] False"
