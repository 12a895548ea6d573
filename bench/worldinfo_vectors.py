"""How similar e5 finds recent chat and world-info entries that belong together, and ones that
do not: the figures behind library/worldinfo_vectors.DEFAULT_THRESHOLD.

    .venv/bin/python bench/worldinfo_vectors.py

Prints every pair's cosine similarity (query = the chat, passage = the entry), the lowest
related and highest unrelated score, and the time to embed entries cold and from the cache.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from library.worldinfo_vectors import _passages, content_hash  # noqa: E402
from personalab.lib.embedding.embeddings import embed_passages, embed_queries  # noqa: E402

ENTRIES = {
    "harbor": "Port Varell is a fog-bound harbor town where smugglers trade salt and whale oil "
              "under the eyes of a corrupt harbor master.",
    "dragon": "The red dragon Ossakar sleeps beneath the northern mountains on a hoard of "
              "melted crowns; waking him brings fire on the valley.",
    "school": "Aldergrove Academy teaches alchemy and swordplay; students wear grey cloaks and "
              "sit their exams in the spring.",
    "tea": "茶馆“听雨楼”在城南，老板娘姓林，消息灵通，楼上雅间只接熟客。",
    "train": "The night train to Kessel leaves at midnight from platform nine; its dining car "
             "is run by a retired spy.",
    "plague": "A grey plague spreads through the lower city; the sick cough ash and the temple "
              "sells charms that do not work.",
}
RELATED = [
    ("We sail into the misty port at dawn. Who runs the docks here?", "harbor"),
    ("The smugglers offer us salt barrels cheap if we keep quiet.", "harbor"),
    ("Smoke rises from the peaks. Something huge is breathing under the mountain.", "dragon"),
    ("Is it true a beast sleeps on a pile of gold up north?", "dragon"),
    ("I hate the alchemy exam next month, my potions always explode.", "school"),
    ("我们去城南那家茶馆打听消息吧。", "tea"),
    ("Our tickets are for the midnight train, platform nine.", "train"),
    ("People in the lower city are coughing up ash. Is it a sickness?", "plague"),
]


def main() -> None:
    names = list(ENTRIES)
    started = time.perf_counter()
    vectors = _passages([ENTRIES[n] for n in names], embed_passages)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    _passages([ENTRIES[n] for n in names], embed_passages)
    warm = time.perf_counter() - started
    related, unrelated = [], []
    for chat, target in RELATED:
        started = time.perf_counter()
        query = embed_queries([chat])[0]
        query_ms = (time.perf_counter() - started) * 1000
        for name, vector in zip(names, vectors):
            score = float(vector @ query)
            (related if name == target else unrelated).append(score)
            mark = "*" if name == target else " "
            print(f"{mark} {score:.3f}  {name:7s} {chat[:60]}")
        print(f"  query embedded in {query_ms:.0f} ms")
    print(f"related:   min {min(related):.3f}  max {max(related):.3f}")
    print(f"unrelated: min {min(unrelated):.3f}  max {max(unrelated):.3f}")
    print(f"{len(names)} entries embedded cold in {cold * 1000:.0f} ms, from the cache in "
          f"{warm * 1000:.2f} ms ({content_hash('x')[:8]}...: sha-256 keys)")


if __name__ == "__main__":
    main()
