"""Passage embedding throughput: the app's path (memory.embeddings.texts_embed) against the path
it replaced (one engine call per batch of 32 whole texts), alternating rounds on the same texts.

    .venv/bin/python bench/embed_throughput.py [--passages 64] [--rounds 3] [--data DIR]

Texts: LoCoMo turns as the app indexes them (speaker-prefixed, with the line before), from
../shared/bench/locomo when present, else a synthetic conversation. Prints passages/s for each
path (median of the rounds), the ratio, and the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REPO = Path(__file__).resolve().parents[1]


def passages_load(data: Path, count: int) -> list[str]:
    texts: list[str] = []
    for path in sorted(data.glob("*.json")):
        conversation = json.loads(path.read_text(encoding="utf-8"))
        conversation = conversation.get("conversation", conversation)
        for key, turns in conversation.items():
            if not key.startswith("session_") or not isinstance(turns, list):
                continue
            previous = None
            for turn in turns:
                line = f"{turn['speaker']}: {turn['text']}"
                texts.append(f"{previous}\n{line}" if previous else line)
                previous = line
                if len(texts) >= count:
                    return texts
    while len(texts) < count:
        n = len(texts)
        texts.append(f"Melanie: I went hiking near the lake on day {n} and painted the sunrise.\n"
                     f"Caroline: That sounds lovely, did you take the dog with you on day {n}?")
    return texts


def before_path(model, texts: list[str]) -> None:
    for start in range(0, len(texts), 32):
        model.encode(texts[start:start + 32], False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench" / "locomo")
    args = parser.parse_args()
    from memory.embeddings import model_load, texts_embed

    texts = passages_load(args.data, args.passages)
    model = model_load(role="passage")
    texts_embed(texts[:2], is_query=False)
    rates: dict[str, list[float]] = {"before": [], "now": []}
    for _ in range(args.rounds):
        started = time.perf_counter()
        before_path(model, texts)
        rates["before"].append(len(texts) / (time.perf_counter() - started))
        started = time.perf_counter()
        texts_embed(texts, is_query=False)
        rates["now"].append(len(texts) / (time.perf_counter() - started))
    before = sorted(rates["before"])[len(rates["before"]) // 2]
    now = sorted(rates["now"])[len(rates["now"]) // 2]
    print(f"{len(texts)} passages, mean {sum(map(len, texts)) / len(texts):.0f} chars; "
          f"rounds: before {[round(r, 1) for r in rates['before']]}, now {[round(r, 1) for r in rates['now']]}")
    print(f"embed_throughput before={before:.1f} passages/s now={now:.1f} passages/s "
          f"ratio={now / before:.2f} load={os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
