"""The app's own time per turn (everything but the LLM) as the session and the memory grow.

    .venv/bin/python bench/turn_overhead.py [--quick] [--turns-per-size 30] [--memory-turns 100000]
                                            [--profile] [--skip-recall]

turn_run runs in this process (Django set up on a temp data folder) with a provider whose stream
yields one short piece at once, so a turn's wall time is the app's own work: reading the files,
the director, lore, prompt assembly, the session writes, the trace file and its index row.

Sizes: sessions of 10, 1,000 and 5,000 turns (written in bulk with FileStore.session_create; memory
indexing off, as in the tests, so no background embedding competes). A process keeps the session
files it has parsed (filestore.SessionCache), so only the first turn on a session parses the whole
file; it is shown apart ("first turn"), the median is of the turns after it. Then an instance whose
memory index holds --memory-turns turns (two documents each, user + assistant, in the `turns`
collection) with recall on, timed on messages that trigger recall ("你还记得……吗"). Filling the index
through MemoryIndex.add_turns embeds every line; the embedding rate is measured first and, when the
whole fill would take longer than --embed-budget seconds, the collection is filled directly with
random unit vectors (documents, ids and metadata exactly as add_turns writes them). The recall turn
itself is real: the query is embedded by the model, Chroma is searched, BM25 runs over the
instance's SQLite FTS5 keyword file, and the finished turn is indexed (embedded) by the app's
background worker, which the benchmark waits for between turns, untimed. The recall turns start
on a fresh index handle with no warm-up: the first one is printed on its own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import os
import pstats
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h  # noqa: E402

SIZES = (10, 1000, 5000)
RECALL_TEXT = "你还记得我们之前在废墟里说过的那个约定吗？"
PLAIN_TEXT = "我们继续往前走吧，看看前面有什么。"
WORDS = ("废墟", "约定", "背叛", "黑帮", "仓库", "子弹", "水源", "地图", "雨夜", "钥匙", "旧城", "商队",
         "医生", "电台", "列车", "沙暴", "信号", "据点", "仇人", "罐头", "发电机", "铁门", "伤口", "酒吧")


class InstantProvider:
    """An LLM that answers at once, so the turn's time is the app's own. With `marker` the reply
    carries a progress marker, so the director never falls behind and never runs its fallback
    search; without it the counter grows and from the third turn on every turn is a reminder turn."""

    name = "bench"
    label = "instant bench provider"
    is_offline_demo = False
    model = "instant"

    def __init__(self, *, marker: bool = True) -> None:
        self.reply = "好。[PROGRESS:1:in_progress]" if marker else "好。"

    async def stream(self, messages: list[dict], *, context: dict):
        yield self.reply

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        return self.reply


def django_boot(data_dir: Path) -> None:
    os.environ.update(h.base_env(data_dir))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)


def library_seed(data_dir: Path):
    """The store (memory indexing off), the bench user, a character and a background."""
    from django.contrib.auth import get_user_model

    from library.background_services import background_save
    from library.character_services import character_save
    from personalab.lib.filestore.store import FileStore

    store = FileStore(data_dir)
    store.module_write("memory", {"recall_enabled": False})
    owner = get_user_model().objects.create_user(h.USERNAME, password="bench-password-123")
    character_id = character_save(store, data={"name": "Alserqi", "base_persona": "废土黑帮老大。",
                                               "greeting": "", "tags": "废土"}, character_id=None)
    background_id = background_save(store, data={
        "name": "废土复仇记", "world_setting": "2087年，核战后50年。",
        "story_outline": ["发现背叛者的线索", "潜入敌人据点", "与仇人对峙"]})
    return store, owner, character_id, background_id


def line_text(turn: int, role: str) -> str:
    a, b, c = WORDS[turn % len(WORDS)], WORDS[(turn * 7 + 3) % len(WORDS)], WORDS[(turn * 13 + 5) % len(WORDS)]
    if role == "user":
        return f"第{turn}天，我们在{a}附近找到了{b}，你觉得{c}的事情还能相信吗？"
    return f"（抬起头）{a}的事我记着。{b}先收好，{c}那边今晚我亲自去看，你别跟来。"


def session_lines(turns: int) -> list[dict[str, Any]]:
    from personalab.lib.filestore.jsonfile import utc_now

    stamp = utc_now()
    lines: list[dict[str, Any]] = []
    for turn in range(1, turns + 1):
        lines.append({"role": "user", "content": line_text(turn, "user"), "turn": turn,
                      "timestamp": stamp})
        lines.append({"role": "assistant", "content": line_text(turn, "assistant"), "turn": turn,
                      "timestamp": stamp, "trace_id": f"trc_{turn:016x}"})
    return lines


def instance_with_session(store, owner, character_id: str, background_id: str, turns: int) -> str:
    from chat.services.instances import instance_create

    instance_id = instance_create(store, owner=owner, character_id=character_id,
                                  background_id=background_id)
    store.session_create(instance_id, "sess_002", continued_from="sess_001",
                         lines=session_lines(turns))
    state = store.instance_state_read(instance_id)
    state["current_session_id"] = "sess_002"
    store.instance_state_write(instance_id, state)
    return instance_id


async def _emit(event: dict) -> None:
    return None


def turn_once(store, instance_id: str, text: str, *, marker: bool = True) -> tuple[float, Any]:
    from chat.play.turn import turn_run

    started = time.perf_counter()
    result = asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=_emit,
                                  provider=InstantProvider(marker=marker)))
    return (time.perf_counter() - started) * 1000, result


def turns_time(store, instance_id: str, count: int, text: str = PLAIN_TEXT, *,
               marker: bool = True, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        turn_once(store, instance_id, text, marker=marker)
    return [turn_once(store, instance_id, text, marker=marker)[0] for _ in range(count)]


def files_state(root: Path) -> dict[Path, tuple[int, int]]:
    return {path: (stat.st_mtime_ns, stat.st_size) for path in root.rglob("*")
            if path.is_file() and (stat := path.stat())}


def turn_bytes(store, instance_id: str, text: str = PLAIN_TEXT) -> int:
    """Bytes one turn writes into the instance's folder: a new or rewritten file counts whole,
    the appended session file counts its growth (the trace's database row is not counted)."""
    from chat.play.turn import TurnRefused

    root = store.instance_dir(instance_id)
    before = files_state(root)
    with contextlib.suppress(TurnRefused):  # a refused turn writes its trace too
        turn_once(store, instance_id, text)
    written = 0
    for path, (mtime, size) in files_state(root).items():
        old = before.get(path)
        if old is None or path.suffix in (".jsonl", ".idx") and path.parent.name == "sessions":
            written += size - (old[1] if old else 0)
        elif old[0] != mtime:
            written += size
    return written


OPEN_SIZES = (10, 1000, 10_000)
CHAT_PAGE = 40


def open_parse_series(store) -> dict[int, tuple[float, ...]]:
    """Parse time when a process first opens a session of n messages: the whole file
    (read_session_file, what a cached read pays the first time), the newest lines only
    (read_session_tail, what the reconnect path pays), the chat page's first page through the
    line index beside the file (read_session_stretch) and what the first turn in the default mode
    (whole session in the prompt) reads: the newest lines back to the prompt's token limit,
    through the index (read_session_recent with the default max_total_tokens; a session that fits
    is read whole). The index is built when the session is written (session_create): that build
    is shown apart. Also the history manager's last page (chat.history_manager.edits.messages_page through the
    index) against a search every line matches (a whole read, what that page cost before).
    Medians of 5, the session cache emptied before each read."""
    from chat.history_manager import reads as history_read
    from chat.prompt.tally import MESSAGE_OVERHEAD_TOKENS
    from personalab.lib.filestore.cache import SESSION_CACHE
    from personalab.lib.filestore.defaults import DEFAULT_CONFIG
    from personalab.lib.filestore.session_read import read_session_file, read_session_tail
    from personalab.lib.filestore.session_stretch import read_session_recent, read_session_stretch
    from personalab.lib.line_index import index_path
    from personalab.lib.tokens import count_tokens_cache_clear, tokenizer_name

    tokenizer_name()  # the tokenizer loaded once, before anything is timed
    room = DEFAULT_CONFIG["limits"]["max_total_tokens"]
    print("-- opening a session: parse time, whole file vs newest 40 messages vs the chat page's "
          "first 40 vs a default-mode turn's read, through the line index (median of 5)")
    figures: dict[int, tuple[float, ...]] = {}
    for size in OPEN_SIZES:
        session_id = f"sess_o{size:05d}"
        lines = session_lines(size // 2)
        count_tokens_cache_clear()  # a fresh process counts every text of an imported chat
        started = time.perf_counter()
        store.session_create("inst_open", session_id, lines=lines)
        build = (time.perf_counter() - started) * 1000
        path = store.session_path("inst_open", session_id)
        if not index_path(path).exists():
            started = time.perf_counter()
            read_session_stretch(path, shown=CHAT_PAGE)
            build = (time.perf_counter() - started) * 1000
        whole, tail, page, turn, manager, search = [], [], [], [], [], []
        for _ in range(5):
            for reader, into in ((lambda: read_session_file(path), whole),
                                 (lambda: read_session_tail(path, messages=CHAT_PAGE), tail),
                                 (lambda: read_session_stretch(path, shown=CHAT_PAGE), page),
                                 (lambda: read_session_recent(
                                     path, tokens=room, overhead=MESSAGE_OVERHEAD_TOKENS), turn),
                                 (lambda: history_read.messages_page(
                                     store, instance_id="inst_open", session_key=session_id),
                                  manager),
                                 # a search every line matches: what the page cost before
                                 (lambda: history_read.messages_page(
                                     store, instance_id="inst_open", session_key=session_id,
                                     query="的"), search)):
                SESSION_CACHE._entries.clear()
                started = time.perf_counter()
                reader()
                into.append((time.perf_counter() - started) * 1000)
        figures[size] = (h.median(whole), h.median(tail), h.median(page), build, h.median(turn),
                         h.median(manager), h.median(search))
        print(f"session of {size:>6} messages ({path.stat().st_size / 1024:7.0f} KB): whole file "
              f"{figures[size][0]:7.2f} ms; newest {CHAT_PAGE} {figures[size][1]:5.2f} ms; "
              f"chat page {figures[size][2]:5.2f} ms; default-mode turn {figures[size][4]:5.2f} ms "
              f"(goal <= 30 each; session written with its index in {build:.0f} ms); history "
              f"manager's last page {figures[size][5]:5.2f} ms (a search over every line "
              f"{figures[size][6]:6.2f} ms)", flush=True)
    return figures


def first_turn_series(store, owner, character_id: str, background_id: str, *, load_all: bool
                      ) -> dict[int, tuple[float, float, float]]:
    """The first turn a fresh process runs on a session of n messages: with the line index
    the session's writer left beside the file, and without it (the turn builds it), against the
    same turn with the whole file parsed (the session cache's first read, the path a turn took
    before the line index). The process's caches (sessions, tallies, lines before, counts) are
    emptied before each; medians of 3. In the default mode a session of 10,000 messages is over the
    prompt's limit, so that turn is refused (after the same work)."""
    # Local: the app's modules load only after main() has run django.setup().
    import chat.play.context as context
    from chat.play.turn import TurnRefused
    from chat.prompt import tally
    from personalab.lib import line_macros
    from personalab.lib.filestore import lines_before
    from personalab.lib.filestore.cache import SESSION_CACHE
    from personalab.lib.filestore.session_stretch import read_session_stretch
    from personalab.lib.line_index import index_path
    from personalab.lib.tokens import count_tokens_cache_clear

    config = store.config_read()
    config["preferences"]["conversation_load_all"] = load_all
    store.config_write(config)
    label = "whole session in the prompt (default)" if load_all else "last 10 messages in the prompt"
    print(f"-- the first turn of a process on a session ({label}; median of 3)")
    figures: dict[int, tuple[float, float, float]] = {}
    for size in OPEN_SIZES:
        instance_id = instance_with_session(store, owner, character_id, background_id, size // 2)
        path = store.session_path(instance_id, "sess_002")
        indexed, unindexed, whole = [], [], []
        refused = False
        for _ in range(3):
            for into, keep_index, read_whole in ((indexed, True, False), (unindexed, False, False),
                                                 (whole, True, True)):
                read_session_stretch(path, shown=CHAT_PAGE)
                if not keep_index:
                    index_path(path).unlink()
                SESSION_CACHE._entries.clear()
                tally._tallies.clear()
                lines_before._held.clear()
                line_macros._counted.clear()
                count_tokens_cache_clear()
                with contextlib.ExitStack() as stack:
                    if read_whole:
                        original = context._session_for_turn
                        context._session_for_turn = lambda *a, newest_only, **k: original(
                            *a, newest_only=False, **k)
                        stack.callback(setattr, context, "_session_for_turn", original)
                    started = time.perf_counter()
                    try:
                        turn_once(store, instance_id, PLAIN_TEXT)
                    except TurnRefused:
                        refused = True
                    into.append((time.perf_counter() - started) * 1000)
        figures[size] = (h.median(indexed), h.median(unindexed), h.median(whole))
        print(f"session of {size:>6} messages: first turn {figures[size][0]:6.1f} ms with the index "
              f"on disk, {figures[size][1]:6.1f} ms building it, {figures[size][2]:6.1f} ms parsing "
              f"the whole file{' (refused: over max_total_tokens)' if refused else ''}", flush=True)
    return figures


def size_series(store, owner, character_id: str, background_id: str, per_size: int,
                *, load_all: bool) -> tuple[dict[int, float | None], dict[int, str], dict[int, float]]:
    """Median ms per turn per session size (None where the app refuses the turn), the
    instances, and the median bytes written per turn."""
    from chat.play.turn import TurnRefused

    config = store.config_read()
    config["preferences"]["conversation_load_all"] = load_all
    store.config_write(config)
    label = "whole session in the prompt (default)" if load_all else "last 10 messages (conversation_load_all off)"
    print(f"-- conversation: {label}")
    per_turn: dict[int, float | None] = {}
    instances: dict[int, str] = {}
    written: dict[int, float] = {}
    for size in SIZES:
        instances[size] = instance_with_session(store, owner, character_id, background_id, size)
        file_kb = store.session_path(instances[size], "sess_002").stat().st_size / 1024
        try:
            first_ms, _ = turn_once(store, instances[size], PLAIN_TEXT)
            times = turns_time(store, instances[size], per_size, warmup=1)
        except TurnRefused as exc:
            per_turn[size] = None
            written[size] = turn_bytes(store, instances[size])
            print(f"session of {size:>5} turns ({file_kb:7.0f} KB): REFUSED {exc.status} {exc.message}; "
                  f"the refused turn wrote {written[size] / 1024:.1f} KB")
            continue
        per_turn[size] = h.median(times)
        written[size] = h.median([turn_bytes(store, instances[size]) for _ in range(3)])
        print(f"session of {size:>5} turns ({file_kb:7.0f} KB): median {per_turn[size]:7.2f} ms/turn "
              f"(min {min(times):.2f}, max {max(times):.2f}, n={len(times)}); "
              f"first turn {first_ms:.1f} ms; written per turn {written[size] / 1024:.1f} KB",
              flush=True)
    return per_turn, instances, written


def profile_turns(store, instance_id: str, count: int, text: str, *, after=None,
                  marker: bool = True) -> str:
    """cProfile of `count` turns with asyncio.to_thread run inline, so the file and prompt work
    (which the app runs on worker threads) shows up in the profile."""
    original = asyncio.to_thread

    async def inline(func, /, *args, **kwargs):
        return func(*args, **kwargs)

    profiler = cProfile.Profile()
    asyncio.to_thread = inline
    try:
        for _ in range(count):
            profiler.enable()
            turn_once(store, instance_id, text, marker=marker)
            profiler.disable()
            if after:
                after()
    finally:
        asyncio.to_thread = original
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("cumulative")
    stats.print_stats(25)
    stats.sort_stats("tottime").print_stats(15)
    return out.getvalue()


# --- the memory of many turns ----------------------------------------------------------


def embedding_rate(index) -> float:
    """Passages per second through the app's embedder (the real model)."""
    texts = [line_text(t, "user") + "\n" + line_text(t, "assistant") for t in range(1, 129)]
    index._passages_embed(texts[:8])  # loads the model
    started = time.perf_counter()
    index._passages_embed(texts)
    return len(texts) / (time.perf_counter() - started)


def memory_fill(store, index, state: dict, turns: int, *, embed: bool) -> float:
    """Fill the `turns` collection with `turns` turns in sessions of 1,000; returns seconds."""
    import numpy as np

    from memory.vectors.index import chroma_id

    started = time.perf_counter()
    owner = {"instance_id": state["instance_id"], "character_id": state["character_id"],
             "background_id": state.get("background_id")}
    collection = index.collection("turns")
    dim = len(index.query_embed("维度"))
    batch = min(5000, index.client().get_max_batch_size())
    rng = np.random.default_rng(7)
    per_session = 1000
    for first in range(0, turns, per_session):
        session_id = f"sess_m{first // per_session + 1:04d}"
        count = min(per_session, turns - first)
        lines = session_lines(count)
        if embed:
            index.add_turns(session_id=session_id, turns=lines, **owner)
            continue
        ids = [chroma_id(owner["instance_id"], f"turn_{session_id}_{l['turn']}_{l['role']}")
               for l in lines]
        metas = [{"instance_id": owner["instance_id"], "character_id": owner["character_id"],
                  "background_id": owner["background_id"] or "", "session_id": session_id,
                  "turn": l["turn"], "role": l["role"], "timestamp": l["timestamp"],
                  "speaker": "", "doc_id": f"turn_{session_id}_{l['turn']}_{l['role']}"}
                 for l in lines]
        vectors = rng.standard_normal((len(lines), dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        for start in range(0, len(ids), batch):
            stop = start + batch
            collection.upsert(ids=ids[start:stop], documents=[l["content"] for l in lines[start:stop]],
                              metadatas=metas[start:stop], embeddings=vectors[start:stop].tolist())
            index.keywords.upsert("turns", owner["instance_id"], [
                (meta["doc_id"], line["content"], meta)
                for meta, line in zip(metas[start:stop], lines[start:stop])])
    return time.perf_counter() - started


def drained_turns(store, instance_id: str, count: int, text: str, *, marker: bool,
                  warmup: int) -> list[float]:
    """Turns timed one by one, the background indexing of each finished turn awaited untimed."""
    from memory import runtime as memory_runtime

    times = []
    for number in range(warmup + count):
        elapsed, _ = turn_once(store, instance_id, text, marker=marker)
        memory_runtime.drain()
        if number >= warmup:
            times.append(elapsed)
    return times


def recall_measure(store, owner, character_id: str, background_id: str, args) -> dict[str, Any]:
    from memory import runtime as memory_runtime

    store.module_write("memory", {"recall_enabled": True})
    instance_id = instance_with_session(store, owner, character_id, background_id, 10)
    state = store.instance_state_read(instance_id)
    index = memory_runtime.index_for(store)
    rate = embedding_rate(index)
    estimate = 2 * args.memory_turns / rate
    embed = estimate <= args.embed_budget
    print(f"embedding rate: {rate:.0f} passages/s -> {2 * args.memory_turns} documents would take "
          f"{estimate / 60:.1f} min to embed; "
          + ("embedding them for real" if embed else
             f"over the {args.embed_budget:g} s budget: filling Chroma with RANDOM unit vectors "
             "(documents, ids, metadata as add_turns writes them)"), flush=True)
    seconds = memory_fill(store, index, state, args.memory_turns, embed=embed)
    print(f"memory filled: {index.count('turns')} documents in the turns collection ({seconds:.0f} s)",
          flush=True)
    # No warm-up: the recall turns start with a fresh index handle (the keyword side is read
    # from its SQLite file as it is on disk, with no load step).
    memory_runtime.forget_indexes()
    times: list[float] = []
    recall_ms: list[float] = []
    hits: list[int] = []
    for _ in range(args.recall_turns):
        elapsed, result = turn_once(store, instance_id, RECALL_TEXT)
        memory_runtime.drain()  # the app indexes the finished turn in the background; untimed
        trace = store.trace_read(instance_id, result.trace_id)
        times.append(elapsed)
        recall_ms.append(trace["timings"].get("recall_ms", 0.0))
        hits.append(len(trace["retrievals"].get("hits", [])))
    plain = drained_turns(store, instance_id, max(3, args.recall_turns // 2), PLAIN_TEXT,
                          marker=True, warmup=0)
    # Without markers the director falls behind; from the third such turn on it searches the
    # memory (this instance's summaries, plots, turns; other instances' events) every turn.
    reminder = drained_turns(store, instance_id, max(3, args.recall_turns // 2), PLAIN_TEXT,
                             marker=False, warmup=3)
    profile = None
    if args.profile:
        profile = profile_turns(store, instance_id, 2, RECALL_TEXT, after=memory_runtime.drain)
    return {"times": times, "recall_ms": recall_ms, "hits": hits, "plain": plain,
            "reminder": reminder,
            "random_vectors": not embed, "profile": profile}


def _open_summary(opened: dict, first_turns: dict, first_whole: dict) -> str:
    return (" ".join(f"ms_open_whole_{size}={opened[size][0]:.1f} "
                     f"ms_open_tail_{size}={opened[size][1]:.2f} "
                     f"ms_open_page_{size}={opened[size][2]:.2f} "
                     f"ms_open_turn_loadall_{size}={opened[size][4]:.2f} "
                     f"ms_open_history_{size}={opened[size][5]:.2f} "
                     f"ms_index_build_{size}={opened[size][3]:.0f}" for size in opened)
            + " " + " ".join(f"ms_first_turn_{size}={first_turns[size][0]:.1f} "
                             f"ms_first_turn_no_index_{size}={first_turns[size][1]:.1f} "
                             f"ms_first_turn_whole_{size}={first_turns[size][2]:.1f}"
                             for size in first_turns)
            + " " + " ".join(f"ms_first_turn_loadall_{size}={first_whole[size][0]:.1f} "
                             f"ms_first_turn_loadall_no_index_{size}={first_whole[size][1]:.1f} "
                             f"ms_first_turn_loadall_before_{size}={first_whole[size][2]:.1f}"
                             for size in first_whole))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="10 turns per size, a memory of 10,000 turns, 3 recall turns")
    parser.add_argument("--turns-per-size", type=int, default=None)
    parser.add_argument("--memory-turns", type=int, default=None)
    parser.add_argument("--recall-turns", type=int, default=None)
    parser.add_argument("--embed-budget", type=float, default=120.0,
                        help="seconds of real embedding allowed for the memory fill")
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile of turns at the largest session and of recall turns")
    parser.add_argument("--skip-recall", action="store_true")
    parser.add_argument("--open-only", action="store_true",
                        help="only the opening series (parse times and first turns), then stop")
    args = parser.parse_args()
    per_size = args.turns_per_size or (10 if args.quick else 30)
    args.memory_turns = args.memory_turns or (10_000 if args.quick else 100_000)
    args.recall_turns = args.recall_turns or (3 if args.quick else 7)
    print(f"machine: {h.machine_describe()}")
    with h.data_dir_temp() as data_dir:
        django_boot(data_dir)
        store, owner, character_id, background_id = library_seed(data_dir)
        opened = open_parse_series(store)
        first_turns = first_turn_series(store, owner, character_id, background_id, load_all=False)
        first_whole = first_turn_series(store, owner, character_id, background_id, load_all=True)
        if args.open_only:
            print(_open_summary(opened, first_turns, first_whole), flush=True)
            os._exit(0)
        default_series, _, default_bytes = size_series(store, owner, character_id,
                                                       background_id, per_size, load_all=True)
        per_turn, instances, last10_bytes = size_series(store, owner, character_id,
                                                        background_id, per_size, load_all=False)
        ratio = per_turn[SIZES[-1]] / per_turn[SIZES[0]]
        print(f"ratio {SIZES[-1]}/{SIZES[0]} (last 10 messages): {ratio:.2f} (goal <= 3)")
        if args.profile or ratio > 3:
            print(f"--- cProfile, 5 turns on the {SIZES[-1]}-turn session ---")
            print(profile_turns(store, instances[SIZES[-1]], 5, PLAIN_TEXT))
        reminder = turns_time(store, instances[SIZES[0]], per_size, marker=False, warmup=4)
        print(f"director reminder turns (no marker for 3+ turns; memory recall is off here, so the "
              f"reminder names the outline point without a search), 10-turn session: "
              f"median {h.median(reminder):.1f} ms "
              f"(min {min(reminder):.1f}, max {max(reminder):.1f})", flush=True)
        recall = None if args.skip_recall else recall_measure(store, owner, character_id,
                                                              background_id, args)
        if recall:
            label = f"{args.memory_turns // 1000}k"
            print(f"recall turns over a memory of {args.memory_turns} turns "
                  f"({'random vectors' if recall['random_vectors'] else 'embedded'}): "
                  f"{[round(t) for t in recall['times']]} ms; recall step {[round(t) for t in recall['recall_ms']]} ms; "
                  f"hits {recall['hits']}")
            steady = recall["times"][1:] or recall["times"]
            print(f"  first {recall['times'][0]:.0f} ms, then median {h.median(steady):.0f} ms; "
                  f"turns without a recall trigger on that instance: median {h.median(recall['plain']):.1f} ms; "
                  f"director reminder turns there: median {h.median(recall['reminder']):.0f} ms")
            if recall["profile"]:
                print("--- cProfile, 2 recall turns ---")
                print(recall["profile"])
        default_1000 = default_series[1000]
        summary = (f"turn_overhead ms_10={per_turn[10]:.1f} ms_1000={per_turn[1000]:.1f} "
                   f"ms_5000={per_turn[5000]:.1f} ratio_5000_10={ratio:.2f} "
                   f"ms_1000_loadall={default_1000 if default_1000 is None else round(default_1000, 1)} "
                   f"ms_5000_loadall={'refused' if default_series[5000] is None else round(default_series[5000], 1)} "
                   f"ms_reminder={h.median(reminder):.0f} "
                   + " ".join(f"kb_written_{size}_loadall={default_bytes[size] / 1024:.1f}"
                              for size in default_bytes)
                   + " " + " ".join(f"kb_written_{size}_last10={last10_bytes[size] / 1024:.1f}"
                                    for size in last10_bytes)
                   + " " + _open_summary(opened, first_turns, first_whole))
        if recall:
            summary += (f" ms_recall_{label}={h.median(recall['times'][1:] or recall['times']):.0f}"
                        f" ms_reminder_{label}={h.median(recall['reminder']):.0f}")
    print(summary, flush=True)
    os._exit(0)  # Chroma and the memory worker keep non-daemon threads; the temp folder is gone


if __name__ == "__main__":
    main()
