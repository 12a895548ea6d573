"""Chat import/export in the JSONL format of other role-play front ends, and Markdown export.

Framework-free. The JSONL format: a header line
    {"user_name", "character_name", "create_date", "chat_metadata": {...}}
then one message per line
    {"name", "is_user", "is_system", "send_date", "mes", "extra": {...}, ...}

Import rules (PersonaLab session lines come out):
- Turns are numbered from 1 and every user message starts a new turn; assistant messages
  before the first user message are the greeting: turn 0 with "greeting": true, as a new
  instance's greeting is.
- is_system messages are not sent to the model by those front ends, so they become
  {"type": "note"} lines (never in the prompt), except PersonaLab's own exported summaries,
  which come back as {"type": "summary"} lines.
- A file without a header line is accepted; names are then taken from the messages.
- Empty messages are skipped; header["import_notes"] lists what was skipped or guessed.
- Dates are read as ISO 8601, epoch milliseconds, "May 12, 2023 5:41pm" or
  "2023-5-12 @17h 41m 53s 343ms" (a date without a zone is taken as UTC).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from chat.history import reply_versions, version_position
from personalab.lib.errors import AppError

HEADER_KEYS = ("user_name", "character_name", "create_date", "chat_metadata")
SUMMARY_TYPE = "summary"
HUMAN_DATE = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s(?:\s*(\d{1,3})ms)?$")
WORDY_FORMATS = ("%B %d, %Y %I:%M%p", "%B %d, %Y %I:%M %p", "%b %d, %Y %I:%M%p",
                 "%B %d, %Y %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M")


class ChatFormatError(AppError, ValueError):
    code = "invalid_chat"

    def __init__(self, message: str) -> None:
        super().__init__(message=message, fields={"file": message})


# dates ---------------------------------------------------------------------

def _iso(moment: datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def date_parse(value: Any) -> str | None:
    """An ISO 8601 UTC timestamp for the date formats role-play front ends write, else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 10**11 else value
        try:
            return _iso(datetime.fromtimestamp(seconds, tz=timezone.utc))
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        return _iso(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        pass
    human = HUMAN_DATE.match(text)
    if human:
        year, month, day, hour, minute, second, _ms = human.groups()
        try:
            return _iso(datetime(int(year), int(month), int(day), int(hour), int(minute),
                                 int(second)))
        except ValueError:
            return None
    for pattern in WORDY_FORMATS:
        try:
            return _iso(datetime.strptime(text, pattern))
        except ValueError:
            continue
    return None


# import ---------------------------------------------------------------------

def _records(data: bytes) -> list[tuple[int, dict[str, Any]]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ChatFormatError(f"the file is not UTF-8 text (byte {exc.start})") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ChatFormatError(f"line {number}: not valid JSON ({exc.msg}, "
                                  f"column {exc.colno})") from None
        if not isinstance(record, dict):
            raise ChatFormatError(f"line {number}: expected a JSON object")
        records.append((number, record))
    if not records:
        raise ChatFormatError("the file is empty")
    return records


def _is_header(record: dict[str, Any]) -> bool:
    return "mes" not in record and any(key in record for key in HEADER_KEYS)


def _header_build(raw: dict[str, Any],
                  messages: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    header = {**raw}
    if not isinstance(header.get("user_name"), str) or not header.get("user_name"):
        header["user_name"] = next((r.get("name") for _, r in messages
                                    if r.get("is_user") is True and r.get("name")), "User")
    if not isinstance(header.get("character_name"), str) or not header.get("character_name"):
        header["character_name"] = next(
            (r.get("name") for _, r in messages
             if r.get("is_user") is False and not r.get("is_system") and r.get("name")),
            "Character")
    header.setdefault("create_date", "")
    if not isinstance(header.get("chat_metadata"), dict):
        header["chat_metadata"] = {}
    header["created_at"] = date_parse(header["create_date"]) or ""
    header["import_notes"] = []
    return header


def _is_user(number: int, record: dict[str, Any], header: dict[str, Any]) -> bool:
    value = record.get("is_user")
    if isinstance(value, bool):
        return value
    if isinstance(record.get("name"), str):
        header["import_notes"].append(f"line {number}: no is_user, guessed from the name")
        return record["name"] == header["user_name"]
    raise ChatFormatError(f"line {number}: message has neither 'is_user' nor 'name'")


def _message_text(number: int, record: dict[str, Any]) -> str:
    text = record.get("mes")
    if not isinstance(text, str):
        raise ChatFormatError(f"line {number}: message has no 'mes' text")
    return text


def _system_line(record: dict[str, Any], text: str, timestamp: str) -> dict[str, Any]:
    extra = record.get("extra") if isinstance(record.get("extra"), dict) else {}
    if extra.get("personalab_type") == SUMMARY_TYPE:
        return {"type": SUMMARY_TYPE, "content": text}
    return {"type": "note", "content": text, "name": record.get("name") or "System",
            "timestamp": timestamp}


def _lines_convert(header: dict[str, Any],
                   records: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    turn = 0
    last_time = header["created_at"]
    for number, record in records:
        text = _message_text(number, record)
        timestamp = date_parse(record.get("send_date")) or last_time
        last_time = timestamp
        if not text.strip():
            header["import_notes"].append(f"line {number}: empty message skipped")
            continue
        if record.get("is_system") is True:
            lines.append(_system_line(record, text, timestamp))
            continue
        is_user = _is_user(number, record, header)
        turn += 1 if is_user else 0
        line = {"role": "user" if is_user else "assistant", "content": text, "turn": turn,
                "timestamp": timestamp}
        if turn == 0:
            line["greeting"] = True
        if not is_user:
            line.update(_swipes_import(record))
        lines.append(line)
    return lines


def _swipes_import(record: dict[str, Any]) -> dict[str, Any]:
    """Other front ends keep every version of a reply in "swipes" with the shown one at
    "swipe_id"; here they become the line's alternatives, the shown one in place."""
    swipes, shown = record.get("swipes"), record.get("swipe_id")
    if (not isinstance(swipes, list) or len(swipes) < 2 or not isinstance(shown, int)
            or not 0 <= shown < len(swipes) or not all(isinstance(x, str) for x in swipes)):
        return {}
    return {"alternatives": [{"content": text} for i, text in enumerate(swipes) if i != shown],
            "alternative_position": shown}


def chat_import_jsonl(data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, PersonaLab session lines) from an exported JSONL chat. The header gets
    "created_at" (ISO, or "" when create_date is unreadable) and "import_notes"."""
    records = _records(data)
    first_number, first = records[0]
    raw_header: dict[str, Any] = {}
    if _is_header(first):
        raw_header, records = first, records[1:]
    elif "mes" not in first:
        raise ChatFormatError(f"line {first_number}: neither a chat header nor a message")
    header = _header_build(raw_header, records)
    return header, _lines_convert(header, records)


# export ---------------------------------------------------------------------

def _export_record(line: dict[str, Any], *, user_name: str, character_name: str,
                   fallback_date: str) -> dict[str, Any] | None:
    send_date = line.get("timestamp") or fallback_date
    if line.get("role") in ("user", "assistant"):
        is_user = line["role"] == "user"
        record = {"name": user_name if is_user else character_name, "is_user": is_user,
                  "is_system": False, "send_date": send_date, "mes": line.get("content", ""),
                  "extra": {}}
        if line.get("alternatives"):
            versions = reply_versions(line)
            record["swipes"] = [str(v.get("content", "")) for v in versions]
            record["swipe_id"] = version_position(line)
        return record
    if line.get("type") in (SUMMARY_TYPE, "note"):
        return {"name": line.get("name") or "System", "is_user": False, "is_system": True,
                "send_date": send_date, "mes": line.get("content", ""),
                "extra": {"type": "narrator", "personalab_type": line["type"]}}
    return None  # metadata and other bookkeeping lines


def chat_export_jsonl(*, lines: list[dict[str, Any]], user_name: str, character_name: str,
                      created_at: str, chat_metadata: dict[str, Any] | None = None) -> bytes:
    header = {"user_name": user_name, "character_name": character_name,
              "create_date": created_at, "chat_metadata": chat_metadata or {}}
    records = [header]
    for line in lines:
        record = _export_record(line, user_name=user_name, character_name=character_name,
                                fallback_date=created_at)
        if record is not None:
            records.append(record)
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def _quote(text: str) -> str:
    return "\n".join(f"> {part}" if part else ">" for part in text.splitlines() or [""])


def chat_export_markdown(*, lines: list[dict[str, Any]], user_name: str, character_name: str,
                         title: str) -> str:
    parts = [f"# {title}", f"*{user_name} & {character_name}*"]
    for line in lines:
        content = (line.get("content") or "").strip()
        if line.get("type") == SUMMARY_TYPE:
            parts.append(_quote(f"**Summary:** {content}"))
        elif line.get("type") == "note":
            parts.append(_quote(f"**{line.get('name') or 'Note'}:** {content}"))
        elif line.get("role") in ("user", "assistant"):
            name = user_name if line["role"] == "user" else character_name
            turn = line.get("turn")
            label = f"**{name}**" + (f" (turn {turn})" if isinstance(turn, int) and turn else "")
            parts.append(f"{label}\n\n{content}")
    return "\n\n".join(parts) + "\n"
