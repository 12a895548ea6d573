"""Chat import: SillyTavern's JSONL, Agnai's and RisuAI's chat JSON (written back as SillyTavern's
JSONL by st_chat_export.py, as Markdown by chat_markdown.py).

Framework-free. The JSONL format: a header line
    {"user_name", "character_name", "create_date", "chat_metadata": {...}}
then one message per line
    {"name", "is_user", "is_system", "send_date", "mes", "extra": {...}, "swipes", "swipe_id", ...}
Lines are split on "\n" only, as JSON is: U+2028 inside a message is text.

Import rules (PersonaLab session lines come out):
- Turns are numbered from 1 and every user message starts a new turn; assistant messages
  before the first user message are the greeting: turn 0 with "greeting": true, as a new
  instance's greeting is. An assistant message that follows another one starts a turn of its
  own (as each reply of a group round has here): a turn holds one line per role, which is how
  the memory index tells lines apart, so a character's run of messages is all searchable.
- Every speaker keeps its `name`; `send_date` is kept as written (the parsed moment goes to
  `timestamp`), `extra` is kept whole (its `reasoning` also goes to the line's `reasoning`),
  and any other key of the message is kept in `carried`, so export writes the message back.
- is_system on a message of a speaker (the user, a name that also speaks normally, or a
  group reply naming its card in original_avatar) is
  SillyTavern's "hidden" message: the line keeps its role with "hidden": true (shown, never
  sent to the model). Other is_system messages and `extra.type == "narrator"` are narrator
  lines: {"type": "note"}, except PersonaLab's own exported summaries, which come back as
  {"type": "summary"} lines. As in SillyTavern, a narrator line written with `is_system: false`
  (its /sys) keeps that flag and is sent to the model as a system message; an `is_system: true`
  one (a comment, a hidden narrator line) is only shown.
- A file without a header line is accepted: names are taken from the messages.
- Lines that cannot be read (not JSON, not an object, no text) are skipped and reported with their
  number and reason; the file is refused when none is a message, past MAX_CHAT_LINES lines
  (an Agnai or RisuAI file's messages) or MAX_CHAT_VALUES values (the whole file's).
- Dates are read as ISO 8601, epoch milliseconds, "May 12, 2023 5:41pm" or
  "2023-5-12 @17h 41m 53s 343ms" (a date without a zone is taken as UTC).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from personalab.lib.errors import Invalid
from personalab.lib.line_macros import macros_in
from personalab.lib.lines import narrator_sent
from personalab.lib.nesting import (
    MAX_CHAT_LINES,
    MAX_CHAT_VALUES,
    JsonRefused,
    json_loads_bounded,
    json_values_exceed,
)

HEADER_KEYS = ("user_name", "character_name", "create_date", "chat_metadata")
UNUSED_NAME = "unused"
SUMMARY_TYPE = "summary"
HUMAN_DATE = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s(?:\s*(\d{1,3})ms)?$")
WORDY_FORMATS = ("%B %d, %Y %I:%M%p", "%B %d, %Y %I:%M %p", "%b %d, %Y %I:%M%p",
                 "%B %d, %Y %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M")


class ChatFormatError(Invalid, ValueError):
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

MESSAGE_KEYS = ("name", "is_user", "is_system", "send_date", "mes", "extra", "swipes", "swipe_id")
SWIPE_INFO = "swipe_info"  # a version's own entry of SillyTavern's swipe_info list
SHOWN_SWIPE = "imported_swipe"  # which version the message's own date and extra belong to
# In a reply's `extra`: it was stopped before it ended. A reply stopped before any text is an
# empty message, which an import otherwise skips: the mark keeps it (and its tag) on a round trip.
INTERRUPTED_MARK = "personalab_interrupted"
NARRATOR_TYPES = ("narrator", "comment", "generic", "help", "welcome", "empty")


@dataclass
class ChatImport:
    """What an import made: the header as read, the session lines, and a report for the page."""

    header: dict[str, Any]
    lines: list[dict[str, Any]]
    skipped: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source: str = "sillytavern"
    original_header: dict[str, Any] | None = None
    # RisuAI keeps the first message outside the chat and names it: -1 the card's first
    # message, i its alternate greeting i. None: the file has its own (or none).
    first_message: int | None = None

    def report(self) -> dict[str, Any]:
        kinds = {"user": 0, "assistant": 0, "narrator": 0, "narrator_sent": 0, "hidden": 0,
                 "summary": 0}
        speakers: list[str] = []  # characters
        players: list[str] = []
        for line in self.lines:
            kind = ("narrator" if line.get("type") == "note" else
                    line.get("type") if line.get("type") == SUMMARY_TYPE else line.get("role"))
            kinds[kind] = kinds.get(kind, 0) + 1
            kinds["hidden"] += 1 if line.get("hidden") else 0
            kinds["narrator_sent"] += 1 if narrator_sent(line) and not line.get("hidden") else 0
            name = line.get("name")
            names = {"assistant": speakers, "user": players}.get(line.get("role"))
            if names is not None and isinstance(name, str) and name not in names:
                names.append(name)
        return {"source": self.source, "messages": len(self.lines), "counts": kinds,
                "speakers": speakers, "players": players, "skipped": self.skipped,
                "notes": self.notes}


NOTE_LINE = re.compile(r"^line (\d+): ")


def _text_lines(data: bytes) -> list[tuple[int, str]]:
    if data.count(b"\n") >= MAX_CHAT_LINES:
        raise ChatFormatError(f"the file has more than {MAX_CHAT_LINES:,} lines")
    if json_values_exceed(data, MAX_CHAT_VALUES - MAX_CHAT_LINES):  # each line's is not enough
        raise ChatFormatError(f"the file holds more than {MAX_CHAT_VALUES:,} values")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ChatFormatError(f"the file is not UTF-8 text (byte {exc.start})") from None
    return [(number, line.rstrip("\r"))
            for number, line in enumerate(text.split("\n"), start=1) if line.strip()]


def _skipped_counted(data: bytes, skipped: list[dict[str, Any]], notes: list[str], *,
                     header_first: bool) -> None:
    """Each skipped line's `message`: which message of the chat it was, counted as a reader
    counts them (1 is the first message after the header), for the report to say so; a note
    about a line ("line 5: …") names its message the same way ("message 4: …")."""
    order = {number: index + (0 if header_first else 1)
             for index, (number, _) in enumerate(_text_lines(data))}
    for skip in skipped:
        skip["message"] = order.get(skip["line"], skip["line"])
    notes[:] = [NOTE_LINE.sub(lambda found: f"message {order.get(int(found[1]), found[1])}: ",
                              note, count=1) for note in notes]


def _records(data: bytes, skipped: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    records = []
    for number, line in _text_lines(data):
        try:
            record = json_loads_bounded(line)
        except json.JSONDecodeError as exc:
            skipped.append({"line": number,
                            "reason": f"not valid JSON ({exc.msg}, column {exc.colno})"})
            continue
        except JsonRefused as exc:
            skipped.append({"line": number, "reason": str(exc)})
            continue
        if not isinstance(record, dict):
            skipped.append({"line": number, "reason": "expected a JSON object"})
            continue
        records.append((number, record))
    return records


def _is_header(record: dict[str, Any]) -> bool:
    return "mes" not in record and any(key in record for key in HEADER_KEYS)


def _name(record: dict[str, Any]) -> str | None:
    """A message's speaker name; a name that is not text is no name."""
    name = record.get("name")
    return name if isinstance(name, str) and name else None


def _header_name(header: dict[str, Any], key: str) -> bool:
    """Whether the header names someone: SillyTavern since 1.13 writes "unused" there (its
    chats never read the header's names), which names nobody."""
    value = header.get(key)
    return isinstance(value, str) and value not in ("", UNUSED_NAME)


def _header_build(raw: dict[str, Any],
                  messages: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    header = {**raw}
    if not _header_name(header, "user_name"):
        header["user_name"] = next((_name(r) for _, r in messages
                                    if r.get("is_user") is True and _name(r)), "User")
    if not _header_name(header, "character_name"):
        header["character_name"] = next(
            (_name(r) for _, r in messages
             if r.get("is_user") is False and not r.get("is_system") and _name(r)),
            "Character")
    header.setdefault("create_date", "")
    if not isinstance(header.get("chat_metadata"), dict):
        header["chat_metadata"] = {}
    header["created_at"] = date_parse(header["create_date"]) or ""
    header["import_notes"] = []
    return header


def _is_user(number: int, record: dict[str, Any], header: dict[str, Any]) -> bool | None:
    value = record.get("is_user")
    if isinstance(value, bool):
        return value
    if isinstance(record.get("name"), str):
        header["import_notes"].append(f"line {number}: no is_user, guessed from the name")
        return record["name"] == header["user_name"]
    return None


def _speakers(header: dict[str, Any], records: list[tuple[int, dict[str, Any]]]) -> set[str]:
    names = {header["user_name"], header["character_name"]}
    names.update(r["name"] for _, r in records
                 if not r.get("is_system") and isinstance(r.get("name"), str))
    return names


def _extra(record: dict[str, Any]) -> dict[str, Any] | None:
    extra = record.get("extra")
    return extra if isinstance(extra, dict) else None


def _is_narrator(record: dict[str, Any], speakers: set[str]) -> bool:
    extra_type = (_extra(record) or {}).get("type")
    if extra_type in NARRATOR_TYPES:
        return True
    # A group member's reply names its card (original_avatar): hidden, it is still theirs.
    return bool(record.get("is_system")) and (
        record.get("is_user") is not True and _name(record) not in speakers
        and not record.get("original_avatar"))


def _kept_fields(record: dict[str, Any], timestamp: str) -> dict[str, Any]:
    """What export needs to write the message back as it came."""
    kept: dict[str, Any] = {}
    if isinstance(record.get("name"), str):
        kept["name"] = record["name"]
    if "send_date" in record and record["send_date"] != timestamp:
        kept["send_date"] = record["send_date"]
    extra = _extra(record)
    if extra is not None:
        kept["extra"] = extra
        if isinstance(extra.get("reasoning"), str) and extra["reasoning"]:
            kept["reasoning"] = extra["reasoning"]
    carried = {key: value for key, value in record.items() if key not in MESSAGE_KEYS}
    if carried:
        kept["carried"] = carried
    return kept


def _narrator_line(record: dict[str, Any], text: str, timestamp: str) -> dict[str, Any]:
    if (_extra(record) or {}).get("personalab_type") == SUMMARY_TYPE:
        return {"type": SUMMARY_TYPE, "content": text}
    line = {"type": "note", "content": text, "name": _name(record) or "System",
            "timestamp": timestamp, **_kept_fields(record, timestamp)}
    if record.get("is_system") is not True:
        line["is_system"] = record.get("is_system", False)
    return line


def _message_line(record: dict[str, Any], text: str, timestamp: str, *, is_user: bool,
                  turn: int) -> dict[str, Any]:
    line = {"role": "user" if is_user else "assistant", "content": text, "turn": turn,
            "timestamp": timestamp, **_kept_fields(record, timestamp)}
    if turn == 0:
        line["greeting"] = True
    if record.get("is_system") is True:
        line["hidden"] = True
    if not is_user and (_extra(record) or {}).get(INTERRUPTED_MARK) is True:
        line["interrupted"] = True
    if is_user and macros_in(text):
        # SillyTavern stored it filled (substituteParams at send): marked as a line sent here.
        line["macros_filled"] = True
    if not is_user:
        line.update(_swipes_import(record, line))
    elif any(key in record for key in ("swipes", "swipe_id")):
        # SillyTavern's continue on a player's message gives it `swipes: [mes]`: kept as is.
        line["carried"] = {**line.get("carried", {}),
                           **{key: record[key] for key in ("swipes", "swipe_id") if key in record}}
    return line


def _other_swipe_said(record: dict[str, Any]) -> bool:
    """An empty reply with a swipe that says something: SillyTavern shows it empty and swipes
    to the others, so it is kept (skipped, its swipes were lost)."""
    swipes = record.get("swipes")
    return record.get("is_user") is not True and isinstance(swipes, list) and any(
        isinstance(swipe, str) and swipe.strip() for swipe in swipes)


def _lines_convert(header: dict[str, Any], records: list[tuple[int, dict[str, Any]]],
                   skipped: list[dict[str, Any]]) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    turn = 0
    replied = False  # the turn has an assistant line already
    last_time = header["created_at"]
    speakers = _speakers(header, records)
    for number, record in records:
        text = record.get("mes")
        if not isinstance(text, str):
            skipped.append({"line": number, "reason": "message has no 'mes' text"})
            continue
        timestamp = date_parse(record.get("send_date")) or last_time
        last_time = timestamp
        if not text.strip() and (_extra(record) or {}).get(INTERRUPTED_MARK) is not True \
                and not _other_swipe_said(record):
            skipped.append({"line": number, "reason": "empty message"})
            continue
        if _is_narrator(record, speakers):
            lines.append(_narrator_line(record, text, timestamp))
            continue
        is_user = _is_user(number, record, header)
        if is_user is None:
            skipped.append({"line": number, "reason": "message has neither 'is_user' nor 'name'"})
            continue
        if is_user or replied:
            turn += 1
        replied = not is_user
        lines.append(_message_line(record, text, timestamp, is_user=is_user, turn=turn))
    return lines


def _swipes_import(record: dict[str, Any], line: dict[str, Any]) -> dict[str, Any]:
    """Other front ends keep every version of a reply in "swipes" with the shown one at
    "swipe_id"; here they become the line's alternatives, the shown one in place. A single
    swipe (the shown text) is remembered in `carried` so export writes it again."""
    swipes, shown = record.get("swipes"), record.get("swipe_id")
    if (not isinstance(swipes, list) or len(swipes) < 2 or not isinstance(shown, int)
            or not 0 <= shown < len(swipes) or not all(isinstance(x, str) for x in swipes)):
        kept = {key: record[key] for key in ("swipes", "swipe_id") if key in record}
        return {"carried": {**line.get("carried", {}), **kept}} if kept else {}
    info = record.get("swipe_info")  # each entry goes with its swipe, kept through a regenerate
    entries = info if isinstance(info, list) and len(info) == len(swipes) else [None] * len(swipes)
    versions = [{"content": text, **_swipe_own(entry, line)}
                for text, entry in zip(swipes, entries)]
    return {"alternatives": [v for i, v in enumerate(versions) if i != shown],
            "alternative_position": shown, SHOWN_SWIPE: shown,
            **{k: v for k, v in versions[shown].items() if k == SWIPE_INFO}}


def _swipe_own(entry: Any, line: dict[str, Any]) -> dict[str, Any]:
    """What a swipe brings when it is shown: SillyTavern's swipe sets the message's send_date
    and `extra` (its reasoning there) from the swipe's swipe_info entry, else keeps the
    message's date."""
    if not isinstance(entry, dict):
        return {}
    extra = entry.get("extra")
    reasoning = extra.get("reasoning") if isinstance(extra, dict) else None
    return {SWIPE_INFO: entry, "timestamp": date_parse(entry.get("send_date")) or
            line["timestamp"], **({"reasoning": reasoning} if isinstance(reasoning, str)
                                  and reasoning else {})}


def _chub_flattened(record: dict[str, Any]) -> dict[str, Any]:
    """A Chub chat's message, whose `mes` and swipes are objects holding the text in
    `message`, as SillyTavern's import flattens it (flattenChubChat)."""
    mes, swipes = record.get("mes"), record.get("swipes")
    if isinstance(mes, dict) and mes.get("message"):
        record = {**record, "mes": mes["message"]}
    if isinstance(swipes, list) and any(isinstance(s, dict) and s.get("message")
                                        for s in swipes):
        record = {**record, "swipes": [s["message"] if isinstance(s, dict) and s.get("message")
                                       else s for s in swipes]}
    return record


def _chat_import_sillytavern(data: bytes) -> ChatImport:
    skipped: list[dict[str, Any]] = []
    records = [(number, _chub_flattened(record)) for number, record in _records(data, skipped)]
    if not records and not skipped:
        raise ChatFormatError("the file is empty")
    raw_header: dict[str, Any] = {}
    if records and _is_header(records[0][1]):
        raw_header, records = records[0][1], records[1:]
    elif records and "mes" not in records[0][1]:  # skipped: the messages after it still count
        skipped.append({"line": records[0][0], "reason": "neither a chat header nor a message"})
        records = records[1:]
    header = _header_build(raw_header, records)
    lines = _lines_convert(header, records, skipped)
    _skipped_counted(data, skipped, header["import_notes"], header_first=bool(raw_header))
    if not lines:
        first = f": line {skipped[0]['line']}: {skipped[0]['reason']}" if skipped else ""
        raise ChatFormatError(f"the file has no chat message that can be read{first}")
    return ChatImport(header=header, lines=lines, skipped=skipped,
                      notes=header.pop("import_notes"), original_header=raw_header or None)


def _capped(messages: list[Any]) -> list[Any]:
    """An Agnai or RisuAI file's messages (one JSON document), as many as a JSONL file's lines."""
    if len(messages) > MAX_CHAT_LINES:
        raise ChatFormatError(f"the file has more than {MAX_CHAT_LINES:,} messages")
    return messages


def _agnai_message(message: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    is_user = bool(message.get("userId"))
    name = message.get("handle") or message.get("name")
    return {"name": name if isinstance(name, str) and name else
            names["user_name" if is_user else "character_name"],
            "is_user": is_user, "mes": message.get("msg"),
            "send_date": message.get("createdAt")}


def _chat_import_agnai(document: dict[str, Any]) -> ChatImport:
    """Agnai's chat export: {"name", "messages": [{"msg", "userId" | "characterId",
    "createdAt", ...}]}. Agnai-only keys are not carried: export writes SillyTavern JSONL."""
    messages = _capped(document["messages"])
    names = {"user_name": "User", "character_name": str(document.get("characterName") or
                                                         document.get("name") or "Character")}
    skipped = []
    records = []
    for number, message in enumerate(messages, start=1):
        if not isinstance(message, dict):
            skipped.append({"line": number, "reason": "message is not a JSON object"})
            continue
        records.append((number, _agnai_message(message, names)))
    header = _header_build({**names, "create_date": document.get("createdAt", ""),
                            "chat_metadata": {}}, records)
    lines = _lines_convert(header, records, skipped)
    for line in lines:
        line.pop("send_date", None)
    if not lines:
        raise ChatFormatError("the Agnai chat has no message with text")
    return ChatImport(header=header, lines=lines, skipped=skipped,
                      notes=header.pop("import_notes"), source="agnai")


RISU_NOTE_DEPTH = 0  # RisuAI's default prompt order puts the author's note after the last chat


def _risu_message(message: dict[str, Any]) -> dict[str, Any]:
    """RisuAI's message {role: "user"|"char", data, time, name?, saying?, disabled?,
    isComment?} as a SillyTavern record; `disabled` is a message left out of the prompt."""
    record = {key: value for key, value in message.items()
              if key not in ("role", "data", "time", "name", "isComment")}
    record.update({"is_user": message.get("role") == "user", "mes": message.get("data"),
                   "send_date": message.get("time")})
    if isinstance(message.get("name"), str) and message["name"]:
        record["name"] = message["name"]
    if message.get("isComment") is True:
        record.update(is_system=True, extra={"type": "comment"})
    return record


def _risu_disabled_hidden(lines: list[dict[str, Any]]) -> None:
    """`disabled: true` leaves one message out of the prompt, `"allBefore"` every message
    before it: here both are hidden lines (shown, never sent)."""
    flags = [(line.get("carried") or {}).get("disabled") for line in lines]
    cut = max((i for i, flag in enumerate(flags) if flag == "allBefore"), default=-1)
    for index, line in enumerate(lines):
        if line.get("role") and (index < cut or flags[index] is True):
            line["hidden"] = True


def _risu_header(chat: dict[str, Any]) -> dict[str, Any]:
    """A SillyTavern header for the chat: its author's note in SillyTavern's keys, so it is
    applied and exported as a SillyTavern chat's is."""
    note = chat.get("note")
    metadata = ({"note_prompt": note, "note_depth": RISU_NOTE_DEPTH, "note_interval": 1,
                 "note_role": 0} if isinstance(note, str) and note.strip() else {})
    return {"chat_metadata": metadata}


def _chat_import_risu(document: dict[str, Any]) -> ChatImport:
    """RisuAI's chat export: {"type": "risuChat", "ver", "data": {"name", "note", "message":
    [...], "fmIndex", ...}}. RisuAI shows the character's first message outside the chat, so
    the file has none: `first_message` says which greeting it was."""
    chat = document.get("data")
    messages = chat.get("message") if isinstance(chat, dict) else None
    if not isinstance(messages, list):
        raise ChatFormatError("the RisuAI chat has no 'data.message' list")
    _capped(messages)
    skipped: list[dict[str, Any]] = []
    records = []
    for number, message in enumerate(messages, start=1):
        if not isinstance(message, dict):
            skipped.append({"line": number, "reason": "message is not a JSON object"})
            continue
        records.append((number, _risu_message(message)))
    original = _risu_header(chat)
    header = _header_build({**original, "user_name": "User"}, records)
    lines = _lines_convert(header, records, skipped)
    if not lines:
        raise ChatFormatError("the RisuAI chat has no message with text")
    _risu_disabled_hidden(lines)
    notes = header.pop("import_notes")
    if len({str(r.get("saying")) for _, r in records if not r["is_user"] and r.get("saying")}) > 1:
        notes.append("This RisuAI chat is a group chat: its replies name their characters by "
                     "RisuAI's ids only, so they come in as this story's character's.")
    shown = chat.get("fmIndex")
    return ChatImport(header=header, lines=lines, skipped=skipped, notes=notes, source="risuai",
                      original_header=original,
                      first_message=shown if type(shown) is int and shown >= -1 else -1)


# Other apps' files uploaded as a chat, by what tells them apart, and what each one is.
NOT_A_CHAT = (
    (lambda d: d.get("type") == "risuAllChats",
     "RisuAI's export of all chats of a character; export one chat in RisuAI and import that"),
    (lambda d: d.get("type") in ("risu", "risuModule", "risuPreset") or d.get("kind") == "memory",
     "a lorebook or module, not a chat; import a lorebook under Lorebooks"),
    (lambda d: isinstance(d.get("spec"), str) and d["spec"].startswith("chara_card"),
     "a character card, not a chat; import it in the Library"),
    (lambda d: d.get("kind") in ("character", "library-character"),
     "an Agnai character, not a chat; import it in the Library"),
)


def _json_document_import(document: dict[str, Any]) -> ChatImport | None:
    if document.get("type") == "risuChat":
        return _chat_import_risu(document)
    for test, what in NOT_A_CHAT:
        if test(document):
            raise ChatFormatError(f"this file is {what}")
    if isinstance(document.get("messages"), list):
        return _chat_import_agnai(document)
    return None


def chat_import(data: bytes) -> ChatImport:
    """A chat file of SillyTavern (JSONL), Agnai or RisuAI (JSON) as PersonaLab session lines."""
    try:
        document = json_loads_bounded(data.decode("utf-8-sig"), max_values=MAX_CHAT_VALUES)
    except (UnicodeDecodeError, json.JSONDecodeError, JsonRefused):
        document = None
    imported = _json_document_import(document) if isinstance(document, dict) else None
    return imported or _chat_import_sillytavern(data)


def chat_import_jsonl(data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, session lines); header["import_notes"] says what was skipped or guessed."""
    result = chat_import(data)
    notes = [f"line {s['line']}: {s['reason']}" for s in result.skipped] + result.notes
    return {**result.header, "import_notes": notes}, result.lines
