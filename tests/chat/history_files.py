"""A chat's session as the history-manager tests fill and read it: turns of questions and
answers added, the manager's row of a line, the backups it kept, and a clock the test sets."""

from __future__ import annotations

from pathlib import Path

from chat.history_manager import reads as history_read


class Clock:
    """A clock the test sets: `clock.now` is what it reads."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def history_backups(store, instance_id) -> list[Path]:
    """The backups the history manager keeps of the chat's sessions, by name."""
    folder = store.sessions_dir(instance_id) / "history"
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def chat_lines_append(store, instance_id, turns: int, session_id: str = "sess_001") -> None:
    """`turns` turns of "question N" and "answer N" added to the session."""
    for turn in range(1, turns + 1):
        store.session_append(instance_id, session_id, {
            "role": "user", "content": f"question {turn}", "turn": turn,
            "timestamp": "2025-01-01T00:00:00Z"})
        store.session_append(instance_id, session_id, {
            "role": "assistant", "content": f"answer {turn}", "turn": turn,
            "timestamp": "2025-01-01T00:00:01Z"})


def history_row(store, instance_id, content: str) -> dict:
    """The history manager's row of the current session's line `content`."""
    page = history_read.messages_page(store, instance_id=instance_id, session_key="sess_001",
                                      query=content, page_size=1000)
    return next(row for row in page["rows"] if row["content"] == content)
