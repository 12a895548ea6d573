"""Indexing an imported chat: seconds until its lines are keyword-searchable, seconds until
every line is embedded (e5 and MiniLM into Chroma), and passages/s.

    .venv/bin/python bench/import_index.py [--messages 10000] [--data DIR] [--no-fill]
                                           [--distinct]

A SillyTavern chat of `--messages` lines is made from the LoCoMo conversations of
../shared/bench/locomo (repeated as needed; synthetic lines when absent), with a plain fact
as its sixth message. It is imported through the app's own import (chat.services.session_import,
which writes the keyword side), a plain question about that fact is asked through recall,
then the background fill (memory.vectors.sync.instance_sync, as the app's job queue runs it) embeds
the rest, newest first. The machine's load (os.getloadavg) is printed beside the figures, and
the fill's CPU seconds (all threads of the process): steadier than its wall time when other
jobs share the cores. The import's keyword step (memory.vectors.fill.session_keywords_index) is
timed on its own, with how many times it read the keyword file's log (`keyword_log_reads`:
reads of log entries into a part, memory/keyword_index/store.py) and how many snapshots it
wrote, and so is the keyword side of the fill (`keyword_during_fill`: its keyword writes'
seconds, log reads, snapshots, and the dead positions rewrites left); `--no-fill` stops after
the recall question (a 50,000-message fill takes an hour). The import's and its keyword step's
CPU seconds (`cpu_seconds_import`, `cpu_seconds_keyword_step`: the process's, every thread) are
printed beside their wall time, which on a shared machine is mostly waiting for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import _harness

FACT = "My sister Maribel keeps three goats called Pepper, Anchor and Juniper on her farm."
QUESTION = "What are the names of Maribel's goats?"


def texts_load(data: Path, count: int) -> list[tuple[str, str]]:
    """(speaker, text) pairs from LoCoMo, repeated to `count`."""
    pairs: list[tuple[str, str]] = []
    for path in sorted(data.glob("*.json")):
        # LoCoMo's own release nests the sessions under "conversation"; ../shared/bench/locomo
        # has them at the top: read both (reading neither embedded one synthetic line 10,000 times).
        record = json.loads(path.read_text(encoding="utf-8"))
        conversation = record.get("conversation") or record
        for key in sorted(conversation, key=lambda k: (len(k), k)):
            if key.startswith("session_") and isinstance(conversation[key], list):
                pairs += [(str(t.get("speaker") or "A"), str(t.get("text") or ""))
                          for t in conversation[key] if t.get("text")]
    if not pairs:
        pairs = [("A", f"Line {n}: we walked on and talked about the weather.") for n in range(97)]
    return [pairs[n % len(pairs)] for n in range(count)]


def chat_make(count: int, data: Path, *, distinct: bool = False) -> bytes:
    """`distinct`: each text ends with its line's number, so no two lines say the same (LoCoMo
    holds 4,120 texts, repeated: a cache of counts or tokens would meet each one again)."""
    records: list[dict] = [{"user_name": "Ann", "character_name": "Bo",
                            "create_date": "2024-3-5 @14h 02m 09s", "chat_metadata": {}}]
    for number, (_, text) in enumerate(texts_load(data, count)):
        text = f"{text} ({number})" if distinct else text
        records.append({"name": "Ann" if number % 2 == 0 else "Bo", "is_user": number % 2 == 0,
                        "is_system": False, "send_date": "2024-03-05T14:03:00.000Z",
                        "mes": FACT if number == 5 else text, "extra": {}})
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def keyword_step_watch(runtime) -> dict[str, float]:
    """Counts the reads of the keyword log into a part (KeywordStore's _refresh calls that
    brought a part forward) and the snapshots made (KeywordPart.to_bytes); times the import's
    keyword step and every keyword write (KeywordStore.upsert)."""
    # The keyword modules read Django settings when imported: after setup, like main's imports.
    from memory.keyword_index.bm25 import KeywordPart
    from memory.keyword_index.store import KeywordStore

    counts = {"seconds": 0.0, "cpu_seconds": 0.0, "log_reads": 0, "snapshots": 0,
              "writes_seconds": 0.0}
    refresh, to_bytes = KeywordStore._refresh, KeywordPart.to_bytes
    step, upsert = runtime.session_keywords_index, KeywordStore.upsert

    def refresh_counted(self, db, instance_id, collection):
        before = self._cache.get((instance_id, collection))
        seen = (id(before), before.seq) if before is not None else None
        cached = refresh(self, db, instance_id, collection)
        counts["log_reads"] += (id(cached), cached.seq) != seen  # it read entries of the log
        return cached

    def to_bytes_counted(self):
        counts["snapshots"] += 1
        return to_bytes(self)

    def step_timed(*args, **kwargs):
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return step(*args, **kwargs)
        finally:
            counts["seconds"] += time.perf_counter() - started
            counts["cpu_seconds"] += time.process_time() - cpu

    def upsert_timed(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return upsert(self, *args, **kwargs)
        finally:
            counts["writes_seconds"] += time.perf_counter() - started

    KeywordStore._refresh, KeywordPart.to_bytes = refresh_counted, to_bytes_counted
    KeywordStore.upsert = upsert_timed
    runtime.session_keywords_index = step_timed
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=10000)
    parser.add_argument("--no-fill", action="store_true")
    parser.add_argument("--distinct", action="store_true",
                        help="no two lines of the chat say the same (a number ends each)")
    parser.add_argument("--data", type=Path, default=REPO.parent.parent / "shared" / "bench"
                        / "locomo")
    args = parser.parse_args()
    if not args.data.is_dir():
        args.data = REPO.parent / "shared" / "bench" / "locomo"
    chat = chat_make(args.messages, args.data, distinct=args.distinct)
    with _harness.data_dir_temp() as data_dir:
        setup = _harness.app_setup(data_dir, instances=1, memory_indexing=True)
        os.environ.update(_harness.base_env(data_dir))
        import django

        django.setup()
        # The app's modules read Django settings when imported: only after setup, in this data folder.
        from chat.services.session_import import session_import
        from memory import runtime
        from memory.recall.rag import query_user_history
        from memory.vectors import fill
        from memory.vectors.sync import instance_sync
        from personalab.storage import get_store

        runtime.schedule_sync = lambda store, **kwargs: None  # this process runs the fill itself
        keyword_counts = keyword_step_watch(runtime)
        store = get_store()
        instance_id = setup.instance_ids[0]
        runtime.index_for(store).collection_ids()  # the models and Chroma loaded before timing
        runtime.index_for(store).query_embed("warm up")
        load_before = os.getloadavg()
        started, cpu = time.perf_counter(), time.process_time()
        session_import(store, instance_id=instance_id, data=chat)
        imported, imported_cpu = time.perf_counter() - started, time.process_time() - cpu
        hits = query_user_history(QUESTION, instance_id, index=runtime.index_for(store),
                                  force=True, k=5).hits
        searchable = time.perf_counter() - started
        found = any("Juniper" in hit.text for hit in hits)
        keywords = {"megabytes": round(len(chat) / 1e6, 1),
                    "cpu_seconds_import": round(imported_cpu, 2),
                    "cpu_seconds_keyword_step": round(keyword_counts["cpu_seconds"], 2),
                    "seconds_keyword_step": round(keyword_counts["seconds"], 2),
                    "keyword_log_reads": keyword_counts["log_reads"],
                    "keyword_snapshots": keyword_counts["snapshots"]}
        if args.no_fill:
            print(json.dumps({"messages": args.messages, "seconds_import": round(imported, 2),
                              **keywords, "seconds_to_keyword_searchable": round(searchable, 2),
                              "sixth_message_fact_recalled_plainly": found,
                              "load_before": [round(x, 2) for x in load_before],
                              "load_after": [round(x, 2) for x in os.getloadavg()],
                              "cpus": os.cpu_count()}, indent=1))
            return
        fill_started, fill_cpu = time.perf_counter(), time.process_time()
        at_import = dict(keyword_counts)
        counts = instance_sync(store, runtime.index_for(store), instance_id=instance_id)
        filled, fill_cpu = time.perf_counter() - fill_started, time.process_time() - fill_cpu
        part = runtime.index_for(store).keywords.part(instance_id, "turns")
        keywords["keyword_during_fill"] = {
            "seconds_writes": round(
                keyword_counts["writes_seconds"] - at_import["writes_seconds"], 2),
            "log_reads": keyword_counts["log_reads"] - at_import["log_reads"],
            "snapshots": keyword_counts["snapshots"] - at_import["snapshots"],
            "lines": len(part), "dead_positions": part.dead}
        progress = fill.progress_get(store, instance_id=instance_id)
        print(json.dumps({
            "messages": args.messages, "lines_indexed": progress["lines"],
            "embedded": progress["embedded"], "passages_embedded": counts["turns"],
            "seconds_import": round(imported, 2), **keywords,
            "seconds_to_keyword_searchable": round(searchable, 2),
            "sixth_message_fact_recalled_plainly": found,
            "seconds_to_fully_embedded": round(searchable + filled, 1),
            "seconds_fill": round(filled, 1),
            "passages_per_second": round(counts["turns"] / filled, 1) if filled else None,
            "cpu_seconds_fill": round(fill_cpu, 1),
            "cpu_ms_per_passage": round(1000 * fill_cpu / counts["turns"], 1) if counts["turns"]
            else None,
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()},
            indent=1))


if __name__ == "__main__":
    main()
