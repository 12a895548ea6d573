"""A long SillyTavern chat goes on: import a 10,000-message chat (SillyTavern JSONL, through the
app's own import), then time the next turn and count its prompt against the context window.

    .venv/bin/python bench/long_chat.py [--messages 10000] [--context 16384]
                                        [--turns 2] [--profile]

Runs in this process on a temp data folder (Django set up as bench/turn_overhead.py does), memory
recall off, with a provider that answers at once and records what it was sent, so the figures are
the app's own work. Goal (issue 30): the next turn in <= 5 s, its prompt within the window
(<= 16,384 tokens with the reply share) and max_tokens set. Prints one summary line at the end.

--turns K plays K turns (the first of the process on the imported file, then K - 1 more) and
prints the median of the later turns' CPU time (`turn_cpu_ms`, this process's time.process_time:
the app's own work) and wall time (it should not grow with --messages), and all K turns' CPU
(`all_turns_cpu_s`). --profile prints the later turns' cProfile, top 25 by own time. --group: a
second character (Bo) joins after the import and each later turn is a group round
(chat.groups.round.conversation_turn: the player's line and the members' replies); its CPU is the
round's; --seed N fixes who answers. --restart (with --group): then two more rounds in a new
process on the same files (a server started again), timed one by one.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h
import turn_overhead as t

TOPICS = ("the key under the lighthouse stairs", "the smuggler's ledger", "the storm at the pier",
          "the captain's lost compass", "the bakery on Tide Street", "the night market lanterns")


class RecordingProvider:
    """Answers at once; keeps the messages and settings of the last request."""

    name = "recording"

    def __init__(self) -> None:
        self.messages: list[dict] = []
        self.generation: dict = {}
        self.requests = 0

    async def stream(self, messages: list[dict], *, context: dict):
        self.messages, self.generation = messages, dict(context.get("generation") or {})
        self.requests += 1
        yield "Of course I remember."

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        return "Of course I remember."


def st_chat(messages: int) -> bytes:
    records = [{"user_name": "Ann", "character_name": "Mira", "create_date": "2024-5-12",
                "chat_metadata": {}}]
    for n in range(messages):
        user = n % 2 == 0
        topic = TOPICS[n % len(TOPICS)]
        text = (f"Day {n // 2}: what did we decide about {topic}?" if user else
                f"({n}) We agreed to keep {topic} between us, and to check it again at dawn.")
        records.append({"name": "Ann" if user else "Mira", "is_user": user, "is_system": False,
                        "send_date": "May 12, 2024 5:41pm", "mes": text, "extra": {}})
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def prompt_tokens(messages: list[dict]) -> int:
    from personalab.lib.tokens import count_tokens

    return sum(count_tokens(m["content"]) + 4 for m in messages) + 3


def turn_timed(store, instance_id: str, provider: RecordingProvider, text: str,
               profile: cProfile.Profile | None = None, *,
               group: bool = False) -> tuple[float, float]:
    """The turn's (a group round's, `group`) wall and CPU seconds."""
    # App modules read Django settings when imported: only after main() set Django up.
    from chat.groups.round import conversation_turn
    from chat.play.turn import turn_run

    started, cpu = time.perf_counter(), time.process_time()
    if profile is not None:
        profile.enable()
    play = conversation_turn if group else turn_run
    asyncio.run(play(store, instance_id=instance_id, user_text=text, emit=t._emit,
                     provider=provider))
    if profile is not None:
        profile.disable()
    return time.perf_counter() - started, time.process_time() - cpu


def rounds_resumed(data_dir: Path, instance_id: str, rounds: int) -> None:
    """In a new process: `rounds` group rounds on the chat the first process left, each timed."""
    t.django_boot(data_dir)
    # After Django's set-up, as the bench's other project imports.
    from personalab.lib.filestore.store import FileStore

    store, provider = FileStore(data_dir), RecordingProvider()
    took = [turn_timed(store, instance_id, provider, f"Still there? ({n})", group=True)
            for n in range(rounds)]
    print("after a restart: " + ", ".join(f"round {n + 1} {wall:.2f} s wall ({cpu:.2f} s CPU)"
                                          for n, (wall, cpu) in enumerate(took)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--context", type=int, default=0, help="generation.context_tokens")
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--group", action="store_true", help="later turns are group rounds")
    parser.add_argument("--restart", action="store_true",
                        help="then two group rounds in a new process")
    parser.add_argument("--seed", type=int, help="of who answers in a group round (random.seed)")
    parser.add_argument("--resume", nargs=2, metavar=("DATA_DIR", "INSTANCE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
    if args.resume:
        rounds_resumed(Path(args.resume[0]), args.resume[1], 2)
        return
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        from chat.services.instance_settings import instance_update
        from chat.services.instances import instance_create
        from chat.services.session_import import session_import

        store, owner, character_id, background_id = t.library_seed(data_dir)
        instance_id = instance_create(store, owner=owner, character_id=character_id,
                                      background_id=background_id)
        if args.context:
            instance_update(store, user=owner, instance_id=instance_id,
                            generation={"context_tokens": args.context})
        data = st_chat(args.messages)
        started = time.perf_counter()
        session_import(store, instance_id=instance_id, data=data)
        imported = time.perf_counter() - started
        provider = RecordingProvider()
        if args.group:
            # After Django's set-up in main(), as the module's other app imports.
            from chat.services.members import instance_member_add
            from library.character_services import character_save

            other = character_save(store, data={"name": "Bo", "base_persona": "A sailor.",
                                                "greeting": "", "tags": ""}, character_id=None)
            instance_member_add(store, user=owner, instance_id=instance_id, character_id=other)
        first, first_cpu = turn_timed(store, instance_id, provider, "Where did we hide the key?",
                              group=args.group)
        tokens, sent = prompt_tokens(provider.messages), provider.generation
        replies = provider.requests
        profile = cProfile.Profile() if args.profile else None
        later = [turn_timed(store, instance_id, provider, f"And then? ({n})", profile,
                            group=args.group)
                 for n in range(max(1, args.turns - 1))]
        second = later[0][0]
        print(f"import of {args.messages:,} messages ({len(data) / 1e6:.1f} MB): {imported:.2f} s")
        print(f"next turn: {first:.2f} s ({first_cpu:.2f} s CPU, {replies} replies), prompt "
              f"{tokens:,} tokens in {len(provider.messages)} messages, "
              f"max_tokens {sent.get('max_tokens')}, "
              f"temperature {sent.get('temperature')}; the turn after: {second:.2f} s")
        window = args.context or 16_384
        print(f"long_chat messages={args.messages} group={args.group} next_turn_s={first:.2f} "
              f"prompt_tokens={tokens} window={window} "
              f"within={tokens + int(sent.get('max_tokens') or 0) <= window} "
              f"turn_cpu_ms={statistics.median(c for _, c in later) * 1000:.1f} "
              f"turn_wall_ms={statistics.median(w for w, _ in later) * 1000:.1f} "
              f"all_turns_cpu_s={first_cpu + sum(c for _, c in later):.2f}")
        if args.restart:
            subprocess.run([sys.executable, __file__, "--resume", str(data_dir), instance_id],
                           check=True)
        if profile is not None:
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(25)
            print(out.getvalue())


if __name__ == "__main__":
    main()
