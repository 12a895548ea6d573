"""A chat written back as SillyTavern's JSONL (its header line, then one message a line): an
imported message's own fields (`carried`, `extra`, its `send_date`) come back as they came, with
PersonaLab's fields over them; swipes as the reply's versions now are; the director's markers
removed from replies; notes and summaries as SillyTavern's narrator messages. What
chat_formats.py imports, this writes back, so a round trip keeps the file."""

from __future__ import annotations

import json
from typing import Any

from chat.history_manager.base import reply_versions, version_position
from chat.import_export.chat_formats import (
    INTERRUPTED_MARK,
    SHOWN_SWIPE,
    SUMMARY_TYPE,
    SWIPE_INFO,
)
from chat.import_export.st_avatars import st_thumbnail_url
from personalab.lib.markers import markers_removed


def _written_back(record: dict[str, Any], line: dict[str, Any]) -> dict[str, Any]:
    """The imported message's own fields over the defaults; PersonaLab's fields win."""
    swiped = _swiped_fields(line)
    own = swiped.get("extra", line.get("extra"))
    extra = dict(own) if isinstance(own, dict) else record["extra"]
    if line.get("reasoning") and "reasoning" not in extra:
        extra["reasoning"] = line["reasoning"]
    carried = line.get("carried") if isinstance(line.get("carried"), dict) else {}
    return {**carried, **record, **swiped, "extra": extra,
            "send_date": swiped.get("send_date", line.get("send_date", record["send_date"]))}


def _swiped_fields(line: dict[str, Any]) -> dict[str, Any]:
    """A reply flipped to another imported swipe: SillyTavern gives the message that swipe's
    date, timings and `extra` (reasoning, model) from its swipe_info entry; the message's own
    were the swipe shown when it was imported (SHOWN_SWIPE)."""
    entry = line.get(SWIPE_INFO)
    if not isinstance(entry, dict) or (version_position(line) == line.get(SHOWN_SWIPE)
                                       and isinstance(line.get("extra"), dict)):
        return {}
    return {key: entry[key] for key in ("send_date", "gen_started", "gen_finished", "extra")
            if key in entry}


def st_display_text(line: dict[str, Any]) -> str | None:
    """SillyTavern's `extra.display_text` (its translate extension's text, shown in place of
    the message as its addOneMessage shows it) while the message is as it was imported, the
    swipe shown included: an edit, a continue or a reply made here shows the message itself."""
    if any(line.get(key) for key in ("edited", "continued", "trace_id")):
        return None
    extra = _swiped_fields(line).get("extra", line.get("extra"))
    shown = extra.get("display_text") if isinstance(extra, dict) else None
    return shown if isinstance(shown, str) and shown.strip() else None


def _swipes_export(line: dict[str, Any], record: dict[str, Any]) -> None:
    """Swipes as the line's versions now are; an imported swipe_info that no longer matches
    them (a regenerated or edited reply) is left out rather than written wrong."""
    if line.get("alternatives"):
        record["swipes"] = [str(v.get("content", "")) for v in reply_versions(line)]
        record["swipe_id"] = version_position(line)
    elif "swipes" in record and record["swipes"] != [record["mes"]]:
        record["swipes"], record["swipe_id"] = [record["mes"]], 0
    info = record.get("swipe_info")
    versions = reply_versions(line)
    # Nothing generated, continued or edited here since the import: the file's own swipe_info
    # whatever its shape (SillyTavern writes [] beside a greeting's swipes).
    untouched = not any(v.get(k) for v in versions for k in ("trace_id", "edited", "continued"))
    if "swipe_info" in record and not untouched and not (
            isinstance(info, list) and len(info) == len(record.get("swipes") or [])):
        record.pop("swipe_info")
    if line.get("alternatives") and "swipe_info" not in record:
        # Swipes made here: SillyTavern shows each one's date from swipe_info.
        record["swipe_info"] = [_swipe_info(version, record["send_date"]) for version in versions]


def _swipe_info(version: dict[str, Any], fallback_date: str) -> dict[str, Any]:
    if isinstance(version.get(SWIPE_INFO), dict):  # an imported swipe's own entry
        return version[SWIPE_INFO]
    when = str(version.get("timestamp") or fallback_date)
    # SillyTavern's swipe puts this extra on the message: its reasoning goes with its swipe.
    reasoning = version.get("reasoning")
    return {"send_date": when, "gen_started": when, "gen_finished": when,
            "extra": {"reasoning": reasoning} if isinstance(reasoning, str) and reasoning else {}}


def _avatar_named(record: dict[str, Any], avatar: str | None) -> None:
    """A group member's reply names its avatar file as SillyTavern's group chats do; an
    imported reply keeps the one it came with."""
    if avatar:
        kept = record.setdefault("original_avatar", avatar)
        record.setdefault("force_avatar", st_thumbnail_url(str(kept)))


def _export_record(line: dict[str, Any], *, user_name: str, character_name: str,
                   fallback_date: str, avatars: dict[str, str]) -> dict[str, Any] | None:
    send_date = line.get("timestamp") or fallback_date
    if line.get("role") in ("user", "assistant"):
        is_user = line["role"] == "user"
        record = _written_back({
            "name": line.get("name") or (user_name if is_user else character_name),
            "is_user": is_user, "is_system": bool(line.get("hidden")),
            "send_date": send_date, "mes": line.get("content", ""), "extra": {}}, line)
        _swipes_export(line, record)
        if not is_user:
            _avatar_named(record, avatars.get(str(line.get("speaker") or "")))
            if line.get("interrupted"):  # an empty one would be skipped by the import
                record["extra"][INTERRUPTED_MARK] = True
            # SillyTavern would show the director's markers as text
            record["mes"] = markers_removed(record["mes"])
            if isinstance(record.get("swipes"), list):
                record["swipes"] = [markers_removed(text) for text in record["swipes"]]
        return record
    if line.get("type") == "note":
        return _written_back({
            "name": line.get("name") or "System", "is_user": False,
            "is_system": True if line.get("hidden") else line.get("is_system", True),
            "send_date": send_date,
            "mes": line.get("content", ""),
            "extra": {"type": "narrator", "personalab_type": "note"}}, line)
    if line.get("type") == SUMMARY_TYPE:
        return {"name": "System", "is_user": False, "is_system": True, "send_date": send_date,
                "mes": line.get("content", ""),
                "extra": {"type": "narrator", "personalab_type": SUMMARY_TYPE}}
    return None  # metadata and other bookkeeping lines


def chat_export_jsonl(*, lines: list[dict[str, Any]], user_name: str, character_name: str,
                      created_at: str, header: dict[str, Any] | None = None,
                      avatars: dict[str, str] | None = None) -> bytes:
    """`header`: the header of an imported chat, written back as it came. `avatars`: a group
    member's avatar file in SillyTavern by its character id (st_avatars.py)."""
    first = {"user_name": user_name, "character_name": character_name,
             "create_date": created_at, "chat_metadata": {}, **(header or {})}
    records = [first]
    for line in lines:
        record = _export_record(line, user_name=user_name, character_name=character_name,
                                fallback_date=created_at, avatars=avatars or {})
        if record is not None:
            records.append(record)
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")

