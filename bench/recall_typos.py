"""Questions typed with typos (memory/recall/typos.py): dev questions whose evidence recall finds
in its first five lines when asked as written are asked again with the slips of fast phone
typing (a letter dropped, two swapped, one doubled; seeded, so every run asks the same), once
with the correction off and once with it on. Each conversation of the LoCoMo layout is indexed
as bench/recall_locomo.py indexes it and asked through memory.recall.rag.query_user_history.

    .venv/bin/python bench/recall_typos.py [--data DIR ...] [--per-conversation 4]
        [--limit-conversations N] [--embed-cache DIR] [--seed 3]
        [--real-word-slips | --first-letter-slips]

A probe hits at 5 when one of its evidence lines is among the first five recalled. Prints one
line per probe (ranks clean / typed, correction off / on, and the corrections made) and ends
with `typos[all] probes=… clean@5=… off@5=… on@5=…`.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from recall_locomo import (  # noqa: E402
    QUESTION_CATEGORIES,
    CachedEmbedder,
    conversation_sessions,
)

from memory.keyword_index.tokens import STOP_WORDS_EN  # noqa: E402
from memory.recall import typos  # noqa: E402
from memory.recall.rag import query_user_history  # noqa: E402
from memory.vectors.index import MemoryIndex  # noqa: E402

K = 5
DEFAULT_DATA = [REPO.parent / "shared" / "bench" / "locomo",
                REPO.parent / "shared" / "bench" / "realtalk-dev"]
NEXT_KEYS = typos._NEXT_KEYS
_WORD = re.compile(r"(?<![A-Za-z0-9'])[a-z]{4,}(?![A-Za-z0-9])")


def slip(word: str, rng: random.Random) -> str:
    """`word` with one slip of the thumb, never on its first letter."""
    at = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("dropped", "swapped", "doubled"))
    if kind == "dropped":
        return word[:at] + word[at + 1:]
    if kind == "swapped" and word[at] != word[at + 1]:
        return word[:at] + word[at + 1] + word[at] + word[at + 2:]
    return word[:at] + word[at] + word[at:]


def real_word_slips(word: str) -> list[str]:
    """The slips of `word` (never on its first letter) that make another English word, not a
    stop word: "pets" -> "pest", "dinner" -> "diner"."""
    made = set()
    for at in range(1, len(word) - 1):
        made |= {word[:at] + word[at + 1:], word[:at] + word[at] + word[at:],
                 word[:at] + word[at + 1] + word[at] + word[at + 2:]}
    english = typos.english_words()
    return sorted(w for w in made - {word} if w in english and w not in STOP_WORDS_EN)


def typed(question: str, seed: int, *, real_words: bool = False,
          first_letter: bool = False) -> str:
    """The question typed fast: each lower-case word of four letters or more (stop words too:
    "whre", "waht") slipped with chance one half, at least one word that is not a stop word.
    `real_words`: one word that is not a stop word is slipped into another English word (the
    same question otherwise); a question none of whose words can be is left as written.
    `first_letter`: one word that is not a stop word has its first letter typed as a key next
    to it instead ("sister": "aister"; the same question otherwise)."""
    rng = random.Random(f"{seed}:{question}")
    words = list(_WORD.finditer(question))
    content = [m for m in words if m.group(0) not in STOP_WORDS_EN]
    if not content:
        return question
    chosen = {m.start() for m in words if rng.random() < 0.5} | {rng.choice(content).start()}
    made: dict[int, str] = {}
    if real_words:
        other = random.Random(f"{seed}:real:{question}")
        slips = {m.start(): real_word_slips(m.group(0)) for m in content}
        able = [start for start, found in slips.items() if found]
        if not able:
            return question
        at = other.choice(able)
        made[at] = other.choice(slips[at])
        chosen.add(at)
    elif first_letter:
        other = random.Random(f"{seed}:first:{question}")
        word = other.choice(content)
        made[word.start()] = other.choice(NEXT_KEYS[word.group(0)[0]]) + word.group(0)[1:]
        chosen.add(word.start())
    pieces, last = [], 0
    for match in words:
        if match.start() in chosen:
            slipped = slip(match.group(0), rng)
            pieces += [question[last:match.start()], made.get(match.start(), slipped)]
            last = match.end()
    return "".join(pieces) + question[last:]


def rank_of(question: str, evidence: set[str], *, index: MemoryIndex, instance_id: str,
            id_to_dia: dict[str, str], now: date | None) -> int | None:
    result = query_user_history(question, instance_id, index=index, force=True, k=K, now=now)
    found = [id_to_dia.get(hit.id) for hit in result.hits]
    return next((rank for rank, dia in enumerate(found) if dia in evidence), None)


def conversation_probes(path: Path, workdir: Path, *, embedder, per_conversation: int,
                        seed: int, real_words: bool = False,
                        first_letter: bool = False) -> list[dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    conversation = data.get("conversation", data)
    instance_id = "bench_" + re.sub(r"[^a-z0-9_]", "_", path.stem.lower())[:50]
    second = embedder.second if embedder is not None else None
    index = MemoryIndex(chroma_path=workdir / instance_id, embedder=embedder, second=second,
                        keywords_path=workdir / f"{instance_id}_keywords")
    id_to_dia: dict[str, str] = {}
    last_day = ""
    for session_id, lines, id_map in conversation_sessions(conversation):
        last_day = max([last_day, *(line["timestamp"][:10] for line in lines)])
        index.add_turns(instance_id=instance_id, character_id="char_bench", background_id=None,
                        session_id=session_id, turns=lines)
        id_to_dia.update(id_map)
    ask = {"index": index, "instance_id": instance_id, "id_to_dia": id_to_dia,
           "now": date.fromisoformat(last_day) if last_day else None}
    probes: list[dict] = []
    for qa in data["qa"]:
        evidence = set(qa.get("evidence") or [])
        question = str(qa.get("question") or "")
        if qa.get("category") not in QUESTION_CATEGORIES or not evidence:
            continue
        slipped = typed(question, seed, real_words=real_words, first_letter=first_letter)
        if slipped == question:
            continue
        clean = rank_of(question, evidence, **ask)
        if clean is None:
            continue  # only what recall finds when asked as written
        kept = typos.MAX_CORRECTED
        typos.MAX_CORRECTED = 0
        try:
            off = rank_of(slipped, evidence, **ask)
        finally:
            typos.MAX_CORRECTED = kept
        on = rank_of(slipped, evidence, **ask)
        changes = typos.typos_read(slipped, index, [instance_id]).changes
        probes.append({"file": path.stem, "question": question, "typed": slipped,
                       "clean": clean, "off": off, "on": on, "changes": changes})
        if len(probes) >= per_conversation:
            break
    return probes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, action="append",
                        help="a folder of conversations in the LoCoMo layout (repeatable; "
                             "default ../shared/bench/locomo and realtalk-dev)")
    parser.add_argument("--per-conversation", type=int, default=4)
    parser.add_argument("--limit-conversations", type=int, default=0)
    parser.add_argument("--embed-cache", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=3)
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--real-word-slips", action="store_true",
                      help="slip one word of each question into another English word "
                           "(\"pets\" -> \"pest\"); questions with no such slip are not asked")
    kind.add_argument("--first-letter-slips", action="store_true",
                      help="type the first letter of one word of each question as a key "
                           "next to it (\"sister\" -> \"aister\")")
    parser.add_argument("--typed-weight", type=float, default=typos.TYPED_WEIGHT,
                        help="try another share of the typed question's scores beside the "
                             "corrected one's")
    args = parser.parse_args()
    typos.TYPED_WEIGHT = args.typed_weight
    embedder = CachedEmbedder(args.embed_cache) if args.embed_cache else None
    probes: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="recall_typos_") as workdir:
        for folder in args.data or DEFAULT_DATA:
            paths = sorted(folder.glob("*.json"))[: args.limit_conversations or None]
            if not paths:
                raise SystemExit(f"no conversation files in {folder}")
            for path in paths:
                found = conversation_probes(path, Path(workdir), embedder=embedder,
                                            per_conversation=args.per_conversation,
                                            seed=args.seed,
                                            real_words=args.real_word_slips,
                                            first_letter=args.first_letter_slips)
                for probe in found:
                    show = {None: "-"}
                    print(f"{probe['file'][:12]:<12} clean {probe['clean']} off "
                          f"{show.get(probe['off'], probe['off'])} on "
                          f"{show.get(probe['on'], probe['on'])}  {probe['typed']!r}  "
                          f"{probe['changes']}", flush=True)
                probes += found
    count = len(probes)
    off = sum(p["off"] is not None for p in probes)
    on = sum(p["on"] is not None for p in probes)
    print(f"typos[all] probes={count} clean@{K}={count} off@{K}={off} on@{K}={on}")


if __name__ == "__main__":
    main()
