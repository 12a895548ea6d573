"""The author's note as SillyTavern keeps it in a chat's `chat_metadata` (`note_prompt`,
`note_depth`, `note_interval`, `note_role`, `note_position`) <-> PersonaLab's note
(`text`, `depth`, `frequency`, `role`). Framework-free.

SillyTavern keeps one note per chat and PersonaLab one per story, so an imported chat's note
becomes the story's when the story has none, and an export writes the story's note."""

from __future__ import annotations

from typing import Any

ROLES = ("system", "user", "assistant")  # SillyTavern's note_role 0, 1, 2
IN_CHAT = 1  # note_position: SillyTavern's "in chat @ depth", the one place PersonaLab puts it
MAX_TEXT = 4000  # as the chat page's note box


def _number(value: Any, low: int, high: int, default: int) -> int:
    return value if type(value) is int and low <= value <= high else default


def note_from_st(metadata: Any) -> dict[str, Any] | None:
    """The note a SillyTavern chat carries, or None when it has none in force (no text, or an
    insertion frequency of 0, which SillyTavern reads as "off")."""
    if not isinstance(metadata, dict):
        return None
    text = metadata.get("note_prompt")
    if not isinstance(text, str) or not text.strip() or metadata.get("note_interval") == 0:
        return None
    role = metadata.get("note_role")
    return {"text": text.strip()[:MAX_TEXT],
            "depth": _number(metadata.get("note_depth"), 0, 50, 4),
            "frequency": _number(metadata.get("note_interval"), 1, 100, 1),
            "role": ROLES[role] if type(role) is int and 0 <= role < len(ROLES) else "system"}


def note_position_moved(metadata: dict[str, Any]) -> str:
    """What the import report adds when SillyTavern placed the note elsewhere than in the chat
    (its "after / before the main prompt"): PersonaLab sends it at its depth in the chat."""
    where = {0: "after the main prompt", 2: "before the main prompt"}.get(
        metadata.get("note_position"))
    return (f" (SillyTavern placed it {where}; here it goes into the chat at depth "
            f"{note_from_st(metadata)['depth']})") if where else ""


def st_metadata_with_note(metadata: dict[str, Any], note: dict[str, Any]) -> dict[str, Any]:
    """`metadata` with the story's note written in; unchanged (key for key) when the chat
    already carries that note, so an imported chat goes back out as it came in."""
    metadata = metadata if isinstance(metadata, dict) else {}
    text = note.get("text") or ""
    if note_from_st(metadata) == (note if text else None):
        return metadata
    if not text and "note_prompt" not in metadata:
        return metadata
    return {**metadata, "note_prompt": text, "note_depth": note["depth"],
            "note_interval": note["frequency"], "note_role": ROLES.index(note["role"]),
            "note_position": IN_CHAT}
