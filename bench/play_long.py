"""A long chat played through real turns: a bench conversation's lines (../shared/bench/) are the
player's messages, one a turn, through the app's own turn path (conversation_turn, recall,
rolling recaps, the director), a summarize every --summarize-every turns (a new session, as the
button does), at each --context window, alone or with three characters.

    .venv/bin/python bench/play_long.py --data ../shared/bench/locomo/conv-26.json
        [--turns 300] [--context 2048 --context 8192] [--group] [--card-tokens 900]
        [--summarize-every 100] [--probe-every 10]

The provider answers at once with the other speaker's line (summaries: one event per few lines;
recaps: their first words) and keeps each request. Every --probe-every turns the player asks
about one of their own lines from at least 40 turns back, in one of the ways people ask ("Do you
remember when …", "What did I tell you about …", "那次…你还记得吗"); a probe is found when that
line reached the request. Reported per window: turns refused or failed, the slowest turn, the
largest request against the window, the most a request held beyond the app's own count of it
(count_gap; 0 when the budget counted every token), turns after a summarize whose request held
none of its summary lines, turns with rolling recaps on file that sent none, and the probes found
(in all, and per phrasing in PROBES order: the last asks without a word of remembering).
Ends with one line per window: `play[window] refused=… slowest_s=… probes=found/asked …`;
`probes_each`: found in every request of the round (in a group, each member's prompt);
`query_embeds`: the texts e5 embedded as queries, per turn (a round counts one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h
import turn_overhead as t
from long_chat import prompt_tokens

PROBES = {
    "en": ["Do you remember when I said: {line}", "What did I tell you about this? {line}",
           "Did I mention it the other day? {line}", "So, about this: {line}"],
    "zh": ["那次我说过：{line}，你还记得吗？", "我跟你说过的那件事——{line}——后来怎么样了？",
           "上周提到的：{line}", "对了，{line}"],
}


class PlayProvider:
    """Answers a turn with the next of `replies`, a summarize with its transcript's lines as
    events, a recap with their first words; keeps the last turn's request."""

    name = "play"

    def __init__(self, replies: list[str]) -> None:
        self.replies, self.messages, self.generation = replies, [], {}
        self.position = 0
        self.round: list[list[dict]] = []  # every request of the last turn (a group's round)

    async def stream(self, messages: list[dict], *, context: dict):
        self.messages, self.generation = messages, dict(context.get("generation") or {})
        self.round.append(messages)
        self.position += 1
        yield self.replies[self.position % len(self.replies)]

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        lines = [str(line.get("content") or "") for line in context.get("transcript") or []]
        if context.get("task") == "summarize":
            events = [{"summary": line[:160], "plot": "1"} for line in lines[::6] if line]
            return json.dumps({"events": events or [{"summary": "Nothing.", "plot": "1"}]})
        if context.get("task") == "recap":
            return " / ".join(line[:40] for line in lines[::4]) or "Nothing."
        return "ok"


def conversation_texts(path: Path) -> tuple[list[str], list[str], str]:
    """The player's lines (speaker A's) and the other side's, of one conversation file or of
    every file of a folder in turn; and the language."""
    mine, theirs = [], []
    for file in sorted(path.glob("*.json")) if path.is_dir() else [path]:
        conversation = json.loads(file.read_text(encoding="utf-8"))
        conversation = conversation.get("conversation", conversation)
        number = 1
        while f"session_{number}" in conversation:
            for raw in conversation[f"session_{number}"]:
                text = raw.get("text", "")
                if text.strip():
                    (mine if raw["speaker"] == conversation["speaker_a"] else theirs).append(text)
            number += 1
    chinese = sum(1 for c in "".join(mine[:50]) if "\u4e00" <= c <= "\u9fff") > 20
    return mine, theirs or (["嗯，我记下了。"] if chinese else ["Mm, noted."]), \
        "zh" if chinese else "en"


def characters(store, owner, *, count: int, card_tokens: int) -> list[str]:
    # App modules are imported once main() has booted Django (turn_overhead.django_boot), as
    # in the other benchmarks.
    from library.character_services import character_save
    from personalab.lib.tokens import count_tokens

    filler = "She keeps the lighthouse, reads the weather and remembers every ship by name. "
    persona = filler
    while count_tokens(persona) < card_tokens:
        persona += filler
    return [character_save(store, user=owner, character_id=None, data={
        "name": name, "base_persona": persona, "greeting": "", "visibility": "private"})
        for name in ("Mira", "Rook", "Sable")[:count]]


def query_embeds_counted() -> list[int]:
    """From now on, the texts e5's query engine embeds as queries, counted in [0]."""
    # After Django's boot, as the other app imports here.
    from personalab.lib.embedding import embeddings

    engine = embeddings.model_load(role="query")
    counted = [0]
    real = engine.encode

    def encode(texts, is_query=False, *args, **kwargs):
        counted[0] += len(texts) if is_query else 0
        return real(texts, is_query, *args, **kwargs)

    engine.encode = encode
    return counted


def play(store, owner, *, texts: tuple[list[str], list[str], str], window: int, group: bool,
         turns: int, card_tokens: int, summarize_every: int, probe_every: int,
         rng: random.Random) -> dict:
    # Imported here for the same reason as in characters().
    from chat.groups.round import conversation_turn
    from chat.play.turn import TurnRefused
    from chat.services import memory_actions
    from chat.services.instances import instance_create
    from memory.summaries.recaps import recap_items

    mine, theirs, lang = texts
    ids = characters(store, owner, count=3 if group else 1, card_tokens=card_tokens)
    instance_id = instance_create(store, owner=owner, character_ids=ids)
    state = store.instance_state_read(instance_id)
    state["generation"] = {**state.get("generation", {}), "context_tokens": window}
    store.instance_state_write(instance_id, state)
    provider = PlayProvider(theirs)
    memory_actions.provider_current = lambda _store: provider
    figures = {"refused": 0, "failed": 0, "slowest": 0.0, "over": 0, "largest": 0,
               "summary_missing": 0, "after_summary": 0, "recaps_missing": 0, "probes": 0,
               "found": 0, "found_each": 0, "summarized": 0, "gap": -10**6, "traces_missing": 0,
               "times": [], "by_phrasing": [[0, 0] for _ in PROBES[lang]]}
    summary_lines: list[str] = []
    said: list[str] = []
    queries = query_embeds_counted()
    for number in range(1, turns + 1):
        probe = None
        if probe_every and number % probe_every == 0 and len(said) > 40:
            probe = rng.choice(said[:-40])
            phrasing = (number // probe_every) % len(PROBES[lang])
            text = PROBES[lang][phrasing].format(line=probe[:80])
        else:
            text = mine[number % len(mine)]
            said.append(text)
        had_recaps = bool(recap_items(store, instance_id=instance_id))
        provider.round = []
        started = time.perf_counter()
        try:
            results = asyncio.run(conversation_turn(store, instance_id=instance_id,
                                                    user_text=text, emit=t._emit,
                                                    provider=provider))
        except TurnRefused as exc:
            figures["refused"] += 1
            print(f"    turn {number} refused: {exc}", flush=True)
            continue
        took = time.perf_counter() - started
        figures["slowest"] = max(figures["slowest"], took)
        figures["times"].append(took)
        if took > 5:
            print(f"    turn {number} took {took:.1f} s", flush=True)
        figures["failed"] += sum(1 for r in results if r.error)
        for result in results:
            if not store.trace_path(instance_id, result.trace_id).exists():
                figures["traces_missing"] += 1
        size = prompt_tokens(provider.messages) + int(provider.generation.get("max_tokens") or 0)
        figures["largest"] = max(figures["largest"], size)
        # The request as sent against the app's own count of it: above 0, the app's budget
        # missed tokens the request carries.
        counted = int(store.trace_read(instance_id, results[-1].trace_id).get("total_tokens")
                      or 0)
        gap = prompt_tokens(provider.messages) - counted
        if gap > max(figures["gap"], 0):
            print(f"    turn {number}: sent {prompt_tokens(provider.messages)}, the app counted "
                  f"{counted} ({len(provider.messages)} messages)", flush=True)
        figures["gap"] = max(figures["gap"], gap)
        figures["over"] += size > window
        if size > window:
            trace = store.trace_read(instance_id, results[-1].trace_id)
            print(f"    turn {number}: request {size} tokens > {window}: "
                  + ", ".join(f"{s.get('name')} {s.get('tokens')}"
                              for s in trace.get("sections", []) if s.get("tokens")), flush=True)
        sent = "\n".join(m["content"] for m in provider.messages)
        if summary_lines:
            figures["after_summary"] += 1
            figures["summary_missing"] += not any(line[:60] in sent for line in summary_lines)
        trace = store.trace_read(instance_id, results[-1].trace_id)
        recaps_sent = next((s.get("tokens", 0) for s in trace.get("sections", [])
                            if s.get("name") == "recaps"), 0)
        if had_recaps and not recaps_sent:
            figures["recaps_missing"] += 1
            print(f"    turn {number}: recaps on file, none sent", flush=True)
        if probe is not None:
            # Found when the line reached a request of the round (in a group, the member
            # answering after another reads the question as that member's context).
            held = [probe[:60] in "\n".join(m["content"] for m in request).replace(text, "")
                    for request in provider.round]
            found = any(held)
            figures["probes"] += 1
            figures["found"] += found
            figures["found_each"] += bool(held) and all(held)
            if not found:
                _miss_print(store, instance_id, number=number, text=text, probe=probe,
                            results=results, requests=provider.round)
            figures["by_phrasing"][phrasing][0] += found
            figures["by_phrasing"][phrasing][1] += 1
        if summarize_every and number % summarize_every == 0:
            result = asyncio.run(memory_actions.memory_action(instance_id, "summarize"))
            session = store.session_read(instance_id, result["new_session_id"])
            summary_lines = [str(line.get("content") or "") for line in session.summaries]
            figures["summarized"] += 1
    figures["query_embeds"] = queries[0] / max(len(figures["times"]), 1)
    return figures


def _miss_print(store, instance_id: str, *, number: int, text: str, probe: str, results,
                requests: list[list[dict]]) -> None:
    """A probe not found: what was asked, what each reply's recall searched and returned, and
    where the probed line ranked among them."""
    print(f"    turn {number}: probe missed: {text[:120]!r}", flush=True)
    for result, request in zip(results, requests):
        trace = store.trace_read(instance_id, result.trace_id)
        recall = trace.get("retrievals") or {}
        hits = [str(hit.get("text") or "") for hit in recall.get("hits") or []]
        rank = next((i for i, hit in enumerate(hits) if probe[:60] in hit), None)
        window = trace.get("window") or {}
        print(f"      {result.speaker or 'reply'}: query {str(recall.get('query'))[:100]!r} "
              f"mode={recall.get('mode')} hits={len(hits)} probe_rank={rank} "
              f"memory_tokens={window.get('memory_tokens')} warning={recall.get('warning')} "
              f"messages={len(request)}", flush=True)
        for hit in hits[:3]:
            print(f"        hit {hit[:100]!r}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--context", type=int, action="append")
    parser.add_argument("--group", action="store_true")
    parser.add_argument("--card-tokens", type=int, default=900)
    parser.add_argument("--summarize-every", type=int, default=100)
    parser.add_argument("--probe-every", type=int, default=10)
    parser.add_argument("--recall", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    texts = conversation_texts(args.data)
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        store, owner, _, _ = t.library_seed(data_dir)
        store.module_write("memory", {"recall_enabled": args.recall, "recaps_enabled": True})
        for window in args.context or [2048, 4096, 8192, 16384]:
            figures = play(store, owner, texts=texts, window=window, group=args.group,
                           turns=args.turns, card_tokens=args.card_tokens,
                           summarize_every=args.summarize_every,
                           probe_every=args.probe_every, rng=random.Random(window))
            print(f"play[{window}{' group' if args.group else ''} {texts[2]}] "
                  f"refused={figures['refused']} failed={figures['failed']} "
                  f"median_s={statistics.median(figures['times'] or [0]):.2f} "
                  f"slowest_s={figures['slowest']:.2f} largest={figures['largest']} "
                  f"over_window={figures['over']} count_gap={figures['gap']} "
                  f"summarized={figures['summarized']} "
                  f"summary_missing={figures['summary_missing']}/{figures['after_summary']} "
                  f"recaps_missing={figures['recaps_missing']} "
                  f"traces_missing={figures['traces_missing']} "
                  f"probes={figures['found']}/{figures['probes']} "
                  f"probes_each={figures['found_each']}/{figures['probes']} "
                  f"query_embeds={figures['query_embeds']:.2f} by_phrasing="
                  + ",".join(f"{f}/{a}" for f, a in figures["by_phrasing"]), flush=True)


if __name__ == "__main__":
    main()
