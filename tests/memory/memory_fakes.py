"""Memory actions without Django or a server: an instance's files in a temp data folder
(Alserqi's, turns of numbered lines), a scripted LLM, a recording index, and recaps rolled turn
by turn."""

from __future__ import annotations

import json
from pathlib import Path

from memory.summaries.recaps import recap_maybe_roll
from personalab.lib.filestore.store import FileStore

INSTANCE = "inst_001"
CHARACTER = "char_alserqi"
BACKGROUND = "bg_wasteland"

TWO_EVENTS = json.dumps({"events": [
    {"summary": "情报交换与信任建立。",
     "plot": "用户告知 Alserqi 北区据点有背叛者的情报，两人约定不冲动。"},
    {"summary": "制定复仇计划。",
     "plot": "Alserqi 决定前往调查，制定了详细的潜入计划，等天黑出发。"},
]}, ensure_ascii=False)


class FakeLLM:
    """Answers from a script: a string, a callable(messages, context), or an exception to raise.
    The last step repeats once the script runs out."""

    def __init__(self, *script):
        self.script = list(script)
        self.calls: list[tuple[list[dict], dict]] = []

    async def complete(self, messages, *, context):
        self.calls.append((messages, context))
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, Exception):
            raise step
        return step(messages, context) if callable(step) else step


class FakeIndex:
    """Records each `add_events` call and answers with an id per summary and plot."""

    def __init__(self):
        self.calls: list[dict] = []

    def add_events(self, **kwargs):
        self.calls.append(kwargs)
        return [f"{kind}_{kwargs['session_id']}_{e['index']}"
                for e in kwargs["events"] for kind in ("summary", "plot")]


def make_instance(root: Path, *, turns: int = 6, earlier_summaries: tuple[str, ...] = (),
                  evolved: str = "", config: dict | None = None) -> FileStore:
    """Alserqi's instance INSTANCE under `root`: sess_001 with the `earlier_summaries`, then
    `turns` turns; its `evolved` persona, and `config` as config.json if given."""
    store = FileStore(root)
    store.character_write(CHARACTER, {"name": "Alserqi", "base_persona": "废土黑帮老大",
                                      "pinned_prompt": ""})
    folder = root / "instances" / INSTANCE
    folder.mkdir(parents=True)
    (folder / "instance_state.json").write_text(json.dumps({
        "instance_id": INSTANCE, "character_id": CHARACTER, "background_id": BACKGROUND,
        "current_session_id": "sess_001", "created_at": "2025-10-10T10:00:00Z",
        "plot_state": {"current_plot_index": 3, "current_status": "in_progress",
                       "no_update_count": 2},
    }, ensure_ascii=False), encoding="utf-8")
    (folder / "character_state.json").write_text(json.dumps(
        {"base_persona": "Alserqi，废土黑帮老大", "evolved_persona": evolved},
        ensure_ascii=False), encoding="utf-8")
    if config is not None:
        (root / "config.json").write_text(json.dumps(config), encoding="utf-8")
    store.session_create(INSTANCE, "sess_001", created_at="2025-10-16T10:00:00Z",
                         lines=[{"type": "summary", "content": s} for s in earlier_summaries])
    for turn in range(1, turns + 1):
        turns_add(store, "sess_001", turn)
    return store


def turns_add(store: FileStore, session_id: str, turn: int) -> None:
    """Turn `turn` of the player and Alserqi added to the session."""
    store.session_append(INSTANCE, session_id, {
        "role": "user", "content": f"用户第{turn}句", "turn": turn,
        "timestamp": f"2025-10-16T10:{turn:02d}:00Z"})
    store.session_append(INSTANCE, session_id, {
        "role": "assistant", "content": f"角色第{turn}句", "turn": turn,
        "timestamp": f"2025-10-16T10:{turn:02d}:05Z"})


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` (but the locks), by its path: what an action must leave as it was."""
    return {str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name != ".lock"}


def config_with(last_n: int, order: str) -> dict:
    """A config.json keeping the last `last_n` turns, in `order` with the summaries."""
    return {"thresholds": {"summary_last_n_turns": last_n},
            "preferences": {"summary_order": order}}


def recap_llm() -> FakeLLM:
    """An LLM whose recap names the turns it was given ("回顾1-2")."""
    def reply(messages, context):
        turns = sorted({line["turn"] for line in context["transcript"]})
        return f"回顾{turns[0]}-{turns[-1]}"
    return FakeLLM(reply)


def recap_settings(max_entries: int) -> dict:
    """Recaps on: one every 2 rounds, stacked every 4, at most `max_entries` kept."""
    return {"recaps_enabled": True, "recap_every_n_rounds": 2, "recap_stack_every_rounds": 4,
            "recap_max_entries": max_entries}


async def roll_through(store: FileStore, llm: FakeLLM, settings: dict, turns: range) -> list:
    """Each of `turns` added, then what a recap roll did after it."""
    done = []
    for turn in turns:
        turns_add(store, "sess_001", turn)
        done.append(await recap_maybe_roll(store, instance_id=INSTANCE, llm=llm,
                                           settings=settings))
    return done
