"""How similar e5 finds recent chat and world-info entries that belong together, and ones that
do not: the figures behind library/worldinfo_vectors.DEFAULT_THRESHOLD.

    .venv/bin/python bench/worldinfo_vectors.py

Prints every pair's cosine similarity (query = the chat, passage = the entry), the lowest
related and highest unrelated score, the time to embed entries in the background (as a book's
save does: library/lore/vector_store.py) and to read them back from disk (as a turn does).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from library.lore import vector_store as lore_vector_store
from library.lore.vectors import content_hash  # noqa: E402
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
    texts = [ENTRIES[n] for n in names]
    lore_vector_store.embedder_install(name="bench", embed_passages=embed_passages)
    with tempfile.TemporaryDirectory() as root:
        started = time.perf_counter()
        lore_vector_store.vectors_request(Path(root), texts)
        lore_vector_store.drain()
        cold = time.perf_counter() - started
        lore_vector_store.cache_forget()
        started = time.perf_counter()
        ready = lore_vector_store.vectors_ready(lore_vector_store.vector_folder(Path(root)),
                                                texts)
        warm = time.perf_counter() - started
    vectors = [ready[content_hash(text)] for text in texts]
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
    print(f"{len(names)} entries embedded in the background in {cold * 1000:.0f} ms, read from "
          f"disk in {warm * 1000:.2f} ms ({content_hash('x')[:8]}...: sha-256 keys)")


if __name__ == "__main__":
    main()
