"""A turn's prompt assembly as a chat is summarized again and again (findings long-chat F7).

    .venv/bin/python bench/summary_growth.py [--cycles 20] [--events 150] [--turns 4]
                                             [--window 4096] [--now-only] [--profile]
    .venv/bin/python bench/summary_growth.py --old-session 3000 [--turns 20] [--window 4096]
                                             [--action plain|regenerate|continue|...]

turn_run and memory_summarize run in this process (Django set up on a temp data folder, memory
indexing off) with a provider that answers at once: each cycle plays `--turns` turns, then
summarizes, the model answering `--events` story events. After each summarize the next turns'
`assemble_ms` (the trace's "Building the prompt") is printed with the summary lines the new
session holds and the summary lines the ledger holds. The chat's context window is `--window`
tokens (its Generation setting), so the prompt keeps only the newest summary lines that fit.
The time per turn should not grow with the number of summarizes. Unless --now-only, a second
chat is played alongside, cycle by cycle, on the code before the summary bound (every earlier
summary seeded into each new session, each summary line rendered every turn), for comparison.

--old-session N: a chat whose current session was seeded before the summary bound (N summary
lines, as 20 summarizes of 150 events left it, then its last 5 turns), played for `--turns`
turns on the code of this checkout; run it on a checkout before a change for the before figure.
--action: each of those turns is another kind of action (bench/turn_kinds.py: regenerate,
continue, swipe, impersonate, aside, group, inspector), timed whole.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h  # noqa: E402
from turn_kinds import ACTIONS, action_prepare, action_timed  # noqa: E402
from turn_overhead import InstantProvider, django_boot, library_seed, line_text  # noqa: E402


class EventsProvider(InstantProvider):
    """Answers a summarize with `events` story events, each a different sentence."""

    def __init__(self, events: int) -> None:
        super().__init__(marker=True)
        self.events = events
        self.asked = 0

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        if context.get("task") != "summarize":
            return self.reply
        self.asked += 1
        return json.dumps({"events": [
            {"summary": f"第{self.asked}次汇总的第{i}件事：" + line_text(self.asked * 1000 + i,
                                                                       "user"),
             "plot": line_text(self.asked * 1000 + i, "assistant")}
            for i in range(self.events)]}, ensure_ascii=False)


# The app's modules are imported inside the functions: they need Django, which main() boots
# (django_boot) only once the data folder is chosen, as the other benches do.
def turn_timed(store, instance_id: str, turn: int) -> tuple[float, float]:
    """(the turn's wall ms, its assemble_ms)."""
    from chat.play.turn import turn_run

    async def emit(event: dict) -> None:
        return None

    started = time.perf_counter()
    result = asyncio.run(turn_run(store, instance_id=instance_id, emit=emit,
                                  user_text=line_text(turn, "user"),
                                  provider=InstantProvider()))
    elapsed = (time.perf_counter() - started) * 1000
    trace = store.trace_read(instance_id, result.trace_id)
    return elapsed, trace["timings"]["assemble_ms"]


def prepare_profiled(profiler: cProfile.Profile) -> None:
    """Profile each turn's preparation (recall, director, the prompt), which runs in a worker
    thread the profiler of the main thread does not see."""
    import chat.play.context as context

    prepare = context.context_prepare

    def profiled(*args, **kwargs):
        profiler.enable()
        try:
            return prepare(*args, **kwargs)
        finally:
            profiler.disable()

    context.context_prepare = profiled


def summarize(store, instance_id: str, provider: EventsProvider, window) -> None:
    from memory.summaries.summarize import memory_summarize

    asyncio.run(memory_summarize(store, instance_id=instance_id, llm=provider, index=None,
                                 prompt_tokens=window.prompt_room))


def session_summary_lines(store, instance_id: str) -> int:
    state = store.instance_state_read(instance_id)
    return len(store.session_read(instance_id, state["current_session_id"]).summaries)


def ledger_lines(store, instance_id: str) -> int:
    path = store.instance_dir(instance_id) / "memory" / "summaries.jsonl"
    return sum(1 for _ in path.open(encoding="utf-8")) if path.exists() else 0


@contextlib.contextmanager
def code_before(active: bool):
    """With `active`, the code before the summary bound (decisions/summary-seed.md): every
    earlier summary seeded into each new session, and each summary line rendered every turn."""
    import chat.prompt.conversation as conversation
    import memory.summaries.summarize as summarize_module

    if not active:
        yield
        return
    room, reads_only = summarize_module.summary_seed_room, conversation.template_reads_only
    summarize_module.summary_seed_room = lambda config, prompt_tokens: 10**12
    conversation.template_reads_only = lambda source, names: False
    try:
        yield
    finally:
        summarize_module.summary_seed_room, conversation.template_reads_only = room, reads_only


def chat_make(store, owner, character_id: str, background_id: str, window_tokens: int) -> str:
    from chat.services.instances import instance_create

    instance_id = instance_create(store, owner=owner, character_id=character_id,
                                  background_id=background_id)
    state = store.instance_state_read(instance_id)
    state["generation"] = {"context_tokens": window_tokens}
    store.instance_state_write(instance_id, state)
    return instance_id


def cycle_turns(store, instance_id: str, first_turn: int, count: int) -> tuple[float, float]:
    """(turn median ms, assemble median ms) of `count` turns, the first left out (warm-up)."""
    times = [turn_timed(store, instance_id, first_turn + n) for n in range(count)]
    kept = times[1:] or times
    return h.median([t[0] for t in kept]), h.median([t[1] for t in kept])


def old_session_chat(store, owner, character_id: str, background_id: str, window_tokens: int,
                     summary_lines: int) -> str:
    """A chat whose current session opens with `summary_lines` summary lines and 5 turns, as a
    summarize before the summary bound seeded it (the session file written as it left it)."""
    instance_id = chat_make(store, owner, character_id, background_id, window_tokens)
    summaries = [{"type": "summary", "content": f"第{n // 150 + 1}次汇总的第{n % 150}件事："
                  + line_text(n, "user")} for n in range(summary_lines)]
    turns = [{"role": role, "content": line_text(turn, role), "turn": turn,
              "timestamp": "2026-11-01T10:00:00Z"}
             for turn in range(1, 6) for role in ("user", "assistant")]
    store.session_create(instance_id, "sess_002", continued_from="sess_001",
                         lines=summaries + turns)
    state = store.instance_state_read(instance_id)
    state["current_session_id"] = "sess_002"
    store.instance_state_write(instance_id, state)
    return instance_id


def old_session_run(args: argparse.Namespace, store, owner, character_id: str,
                    background_id: str) -> None:
    instance_id = old_session_chat(store, owner, character_id, background_id, args.window,
                                   args.old_session)
    if args.action != "plain":
        old_session_action(args, store, instance_id, owner, character_id)
        return
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        prepare_profiled(profiler)
    times = [turn_timed(store, instance_id, 6 + n) for n in range(args.turns + 1)]
    kept = times[1:]  # the first parses the session file
    print(f"old session: {session_summary_lines(store, instance_id)} summary lines, first turn "
          f"{times[0][0]:.1f} ms (assemble {times[0][1]:.1f}); next {len(kept)} turns: median "
          f"{h.median([t[0] for t in kept]):.1f} ms, assemble median "
          f"{h.median([t[1] for t in kept]):.1f} ms")
    if profiler:
        profile_print(profiler)
    print(f"summary_growth_old_session summary_lines={args.old_session} "
          f"assemble_ms={h.median([t[1] for t in kept]):.1f} "
          f"turn_ms={h.median([t[0] for t in kept]):.1f}")


def old_session_action(args: argparse.Namespace, store, instance_id: str, owner,
                       character_id: str) -> None:
    """--action: a plain turn first (it parses the session file and leaves a reply to redo),
    then `--turns` + 1 of the action, the first left out."""
    from library.character_services import character_save

    turn_timed(store, instance_id, 6)
    other = character_save(store, data={"name": "Mira", "base_persona": "废土医生。",
                                        "greeting": "", "tags": "废土"}, character_id=None)
    act = action_prepare(store, instance_id, args.action, owner=owner, extra_character=other)
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        threads_inline()
    times = []
    for n in range(args.turns + 1):
        if profiler and n:
            profiler.enable()
        times.append(action_timed(act, 7 + n))
        if profiler and n:
            profiler.disable()
    kept = times[1:]
    if profiler:
        profile_print(profiler)
    print(f"summary_growth_old_session action={args.action} "
          f"summary_lines={args.old_session} first_ms={times[0][0]:.1f} "
          f"turn_ms={h.median([t[0] for t in kept]):.1f} "
          f"cpu_ms={h.median([t[1] for t in kept]):.1f}")


def threads_inline() -> None:
    """The work a turn hands to worker threads run in the caller's, where the profiler sees it
    (the bench plays one turn at a time: nothing waits on the loop meanwhile)."""
    async def inline(func, /, *args, **kwargs):
        return func(*args, **kwargs)

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # the ORM called from the loop's thread
    asyncio.to_thread = inline


def profile_print(profiler: cProfile.Profile) -> None:
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
    print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--events", type=int, default=150)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--window", type=int, default=4096)
    parser.add_argument("--now-only", action="store_true",
                        help="no chat run on the code before the summary bound")
    parser.add_argument("--profile", action="store_true",
                        help="a cProfile of the last cycle's turns")
    parser.add_argument("--old-session", type=int, default=0, metavar="N",
                        help="only a chat seeded before the summary bound, with N summary lines")
    parser.add_argument("--action", choices=ACTIONS, default="plain",
                        help="with --old-session: the kind of turn timed")
    args = parser.parse_args()
    print(f"machine: {h.machine_describe()}")
    with h.data_dir_temp() as data_dir:
        django_boot(data_dir)
        from chat.play.window import turn_window

        store, owner, character_id, background_id = library_seed(data_dir)
        if args.old_session:
            old_session_run(args, store, owner, character_id, background_id)
            return
        chats = {"now": chat_make(store, owner, character_id, background_id, args.window)}
        if not args.now_only:
            chats["before"] = chat_make(store, owner, character_id, background_id, args.window)
        window, _ = turn_window(store, store.instance_state_read(chats["now"]))
        provider = EventsProvider(args.events)
        medians: dict[str, list[float]] = {name: [] for name in chats}
        for cycle in range(args.cycles + 1):
            profiler = cProfile.Profile() if args.profile and cycle == args.cycles else None
            if profiler:
                prepare_profiled(profiler)
            parts = []
            for name, instance_id in chats.items():
                with code_before(name == "before"):
                    turn_ms, assemble = cycle_turns(store, instance_id, cycle * args.turns + 1,
                                                    args.turns)
                medians[name].append(assemble)
                parts.append(f"{name}: session summary lines "
                             f"{session_summary_lines(store, instance_id):>5}, turn "
                             f"{turn_ms:6.1f} ms, assemble {assemble:6.1f} ms")
            print(f"after {cycle:>3} summarizes (ledger "
                  f"{ledger_lines(store, chats['now']):>5} summaries): " + "; ".join(parts),
                  flush=True)
            if profiler:
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
                print(out.getvalue())
            if cycle < args.cycles:
                for name, instance_id in chats.items():
                    with code_before(name == "before"):
                        summarize(store, instance_id, provider, window)
        print("summary_growth " + " ".join(
            f"{name}_assemble_ms_0={values[0]:.1f} {name}_assemble_ms_{args.cycles}="
            f"{values[-1]:.1f} {name}_summary_lines="
            f"{session_summary_lines(store, chats[name])}" for name, values in medians.items())
            + f" ledger_lines={ledger_lines(store, chats['now'])}")


if __name__ == "__main__":
    main()
