"""CPU of the new recall and lore-naming code on hostile input (red team, 2026-12-02).

    PYTHONPATH=. .venv/bin/python bench/recall_hostile.py              # the functions alone
    PYTHONPATH=. .venv/bin/python bench/recall_hostile.py --index 1000 # and a whole recall

`--index N` also indexes N lines said under N names (an imported chat keeps each line's name;
embedding them takes seconds) and times a whole recall (query_user_history) of 20,000-character
questions: capitalised words, the speakers' names, one letter.

Each case prints its CPU (time.process_time) on one thread: a question chaining many
speakers' names (an imported chat keeps every line's name), 20,000-character lines, names that
look like regexes, and the naming of a book's SillyTavern tag ids from a settings.json.
"""

from __future__ import annotations

import os
import random
import string
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import django

# The lore modules and the index read Django's settings when imported.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "personalab.settings")
django.setup()

from library.lore.st_tags import lorebook_tags_named  # noqa: E402
from memory.recall.addressed import addressed_strip  # noqa: E402
from memory.recall.focus import names_strip, speakers_named  # noqa: E402
from memory.recall.rag import query_user_history  # noqa: E402
from memory.vectors.index import MemoryIndex  # noqa: E402


def _cpu(label: str, run: Callable[[], object]) -> None:
    started = time.process_time()
    run()
    print(f"{label:62s} {1000 * (time.process_time() - started):9.1f} ms")


def _names(count: int, length: int, seed: int = 1) -> set[str]:
    rnd = random.Random(seed)
    return {"".join(rnd.choice(string.ascii_lowercase) for _ in range(length)).capitalize()
            for _ in range(count)}


def _st_tags_naming() -> None:
    ids = [str(1700000000000 + n) for n in range(10_000)]
    book = {"entries": [{"uid": uid, "extensions": {"character_filter": {"tags": list(ids)}}}
                        for uid in range(5)]}
    _cpu("st_tags: 5 entries x 10,000 tag ids named",
         lambda: lorebook_tags_named(book, {tag: f"t{tag}" for tag in ids}))


def _whole_recall(count: int) -> None:
    rnd = random.Random(3)
    index = MemoryIndex(chroma_path=Path(tempfile.mkdtemp()) / "chroma_db")
    names = sorted(_names(count, 7, seed=3))
    index.add_turns(instance_id="inst_x", character_id="c", background_id=None,
                    session_id="sess_001", turns=[
                        {"role": "user", "content": f"I told {name} about the harbour job {turn}",
                         "turn": turn, "timestamp": "2026-12-01T10:00:00Z", "name": name}
                        for turn, name in enumerate(names, start=1)])
    words = " ".join("".join(rnd.choice(string.ascii_lowercase) for _ in range(6)).capitalize()
                     for _ in range(2_900))
    for label, question in (("capitalised words", f"What did I say {words}"[:19_990] + "?"),
                            ("the speakers' names", f"Remember when {' '.join(names)}"[:19_990]
                             + " said it?"),
                            ("one letter", "did I tell you " + "a" * 19_900 + "?")):
        _cpu(f"whole recall, {count:,} speakers, 20,000 chars of {label}",
             lambda q=question: query_user_history(q, "inst_x", index=index, force=True, k=10))


def main() -> None:
    many = _names(10_000, 6)
    chain = " and ".join(sorted(many, key=len))[:19_980]
    chain = chain[: chain.rfind(" and ")] + ", what did I say?"
    _cpu("addressed: 10,000 speakers, a 20,000-char question chaining them",
         lambda: addressed_strip(chain, many))
    _cpu("addressed: 1 speaker, a 20,000-char line",
         lambda: addressed_strip("x" * 20_000, {"Bram"}))
    _cpu("addressed: names (.*)+ [a-z] \\ * and empty",
         lambda: addressed_strip("(.*)+, what did I say? [a-z]", {"(.*)+", "", " ", "[a-z]", "\\"}))
    overlapping = {"a" * n for n in range(1, 3000)}
    _cpu("addressed: 2,999 overlapping names a..a*2999, a 200 KB chain",
         lambda: addressed_strip(" and ".join(sorted(overlapping, key=len, reverse=True))[:200_000]
                                 + ", q", overlapping))
    rnd = random.Random(2)
    for count, length in ((1_000, 2_000), (10_000, 20_000)):
        speakers = _names(count, 7)
        question = " ".join("".join(rnd.choice(string.ascii_lowercase) for _ in range(6))
                            .capitalize() for _ in range(length // 7))[:length] + "?"
        words = tuple(question.rstrip("?").split())
        _cpu(f"focus: {count:,} speakers, a {length:,}-char question: names_strip",
             lambda: names_strip(question, speakers))
        _cpu(f"focus: {count:,} speakers, a {length:,}-char question: speakers_named",
             lambda: speakers_named(words, speakers))
    _st_tags_naming()
    if "--index" in sys.argv:
        _whole_recall(int(sys.argv[sys.argv.index("--index") + 1]))


if __name__ == "__main__":
    main()
