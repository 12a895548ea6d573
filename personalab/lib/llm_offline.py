"""The built-in offline demo provider: canned, deterministic replies when no model is configured."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import AsyncIterator

OFFLINE_LABEL = "Offline demo — replies are generated locally, not by a language model"


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- Offline demo -----------------------------------------------------------------------------

_CJK_CHARS = "\u3400-\u9fff\uf900-\ufaff"
_CJK = re.compile(f"[{_CJK_CHARS}]")
_PIECES = re.compile(f"[{_CJK_CHARS}]{{1,3}}|[^\\s{_CJK_CHARS}]+\\s*|\\s+")

_ZH_OPENINGS = [
    "（{name}沉默片刻）",
    "（{name}抬起头，看着你）",
    "（{name}轻轻叹了口气）",
]
_ZH_BODIES = [
    "你说“{quote}”……我听见了。这件事我会记在心里，我们一步一步来。",
    "“{quote}”——你是认真的吗？好，那我就陪你走下去。",
    "关于“{quote}”，我想了很久。也许答案就在前面不远的地方。",
]
_ZH_CONTINUATIONS = [
    "（{name}顿了顿，又补充道）还有一件事，我一直没说出口。",
    "（{name}望向远处）不过，路还很长，我们得先准备好。",
    "（{name}压低声音）记住，别把这些告诉任何人。",
]
_EN_CONTINUATIONS = [
    "({name} goes on) There is one more thing I never told you.",
    "({name} looks into the distance) Still, the road is long. We should get ready first.",
    "({name} lowers their voice) Remember: tell no one about this.",
]
_EN_OPENINGS = ["({name} pauses for a moment) ", "({name} looks up at you) ", "({name} sighs) "]
_EN_BODIES = [
    '"{quote}" — I hear you. I will keep that in mind, one step at a time.',
    '"{quote}"... are you sure? Then I will walk this road with you.',
    'About "{quote}": I have been thinking about it. The answer may be closer than we think.',
]


class OfflineProvider:
    name = "offline"
    label = OFFLINE_LABEL
    is_offline_demo = True

    def __init__(self, delay: float = 0.01) -> None:
        self.delay = delay

    async def stream(self, messages: list[dict], *, context: dict) -> AsyncIterator[str]:
        for piece in offline_pieces(offline_reply(messages, context)):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield piece

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        task = context.get("task")
        turns = _transcript(messages, context)
        if task == "summarize":
            return json.dumps({"events": offline_events(turns)}, ensure_ascii=False)
        if task == "update_memory":
            return offline_persona(turns, context)
        if task == "recap":
            return offline_recap(turns, context)
        return offline_reply(messages, context)


def offline_reply(messages: list[dict], context: dict) -> str:
    if context.get("task") == "impersonate":
        return offline_impersonation(messages, context)
    name = str(context.get("character_name") or "角色")
    said = _last_text(messages, "user")
    if context.get("group"):
        said = _last_line_said(said)
    chinese = _is_chinese(said)
    seed = int(hashlib.sha256(f"{name}|{said}".encode()).hexdigest(), 16)
    openings, bodies = (_ZH_OPENINGS, _ZH_BODIES) if chinese else (_EN_OPENINGS, _EN_BODIES)
    if context.get("continue_from"):
        more = _ZH_CONTINUATIONS if chinese else _EN_CONTINUATIONS
        return more[(seed + len(str(context["continue_from"]))) % len(more)].format(name=name)
    quote = _quote(said, chinese) or ("……" if chinese else "...")
    # The nine combinations in the line's order, less what it last said (asked again about the
    # same line, it never repeats itself); a regenerate asks with variant 1, 2, ...: the next
    # of them, so no version repeats the reply it replaces either.
    said_last = _last_text(messages, "assistant")
    replies = [openings[pick % 3].format(name=name) + bodies[pick // 3].format(quote=quote)
               for pick in ((seed + step) % 9 for step in range(9))]
    fresh = [reply for reply in replies if reply not in said_last] or replies
    return fresh[int(context.get("variant") or 0) % len(fresh)] + _offline_marker(context)


_ZH_PLAYER_LINES = ["（看着{name}）你刚才说“{quote}”……我想听你说得再清楚一点。",
                    "（点点头）好，{name}，我明白了。那我们接下来怎么办？",
                    "（沉默片刻）“{quote}”？我不太确定，{name}，你能再解释一下吗？"]
_EN_PLAYER_LINES = ['(I look at {name}) "{quote}"... tell me more about that.',
                    "(I nod) All right, {name}, I follow you. What do we do next?",
                    '(after a pause) "{quote}"? I am not sure, {name}. Explain it to me?']


def offline_impersonation(messages: list[dict], context: dict) -> str:
    """The player's next line, as a suggestion: an answer to what the character said last."""
    name = str(context.get("character_name") or "角色")
    heard = _last_text([m for m in messages if m.get("role") != "system"], "assistant")
    chinese = _is_chinese(heard) or not heard and _is_chinese(name)
    lines = _ZH_PLAYER_LINES if chinese else _EN_PLAYER_LINES
    seed = int(hashlib.sha256(f"{name}|{heard}".encode()).hexdigest(), 16)
    quote = _quote(heard, chinese) or ("……" if chinese else "...")
    return lines[seed % len(lines)].format(name=name, quote=quote)


def _offline_marker(context: dict) -> str:
    """Every third turn the demo story moves one step along its outline: the current point is
    completed, then the next one starts, so a newcomer sees the director at work."""
    turn = int(context.get("turn") or 0)
    length = int(context.get("outline_length") or 0)
    if length <= 0 or turn <= 0 or turn % 3:
        return ""
    index = int(context.get("plot_index") or 1)
    if context.get("plot_status") != "completed":
        return f"[PROGRESS:{index}:completed]"
    if index >= length:
        return ""
    return f"[PROGRESS:{index + 1}:in_progress]"


def offline_pieces(text: str) -> list[str]:
    """Words with their trailing space, CJK in runs of up to three characters."""
    return _PIECES.findall(text)


# A summary of a long stretch is a handful of events, as a model writes it, not one per exchange:
# 160 lines made 40 "Talk:" events in the memory drawer.
EVENT_LINES_MIN = 4
EVENTS_MAX = 8


def offline_events(turns: list[dict]) -> list[dict]:
    events = []
    size = max(EVENT_LINES_MIN, -(-len(turns) // EVENTS_MAX))
    for start in range(0, len(turns), size):
        group = turns[start : start + size]
        first = next((t["content"] for t in group if t["role"] == "user"), group[0]["content"])
        chinese = _is_chinese(" ".join(t["content"] for t in group))
        # Each line under the name it was said under (the player's persona, a group's member),
        # as the memory requests' transcripts name them.
        lines = [f"{t.get('name') or _speaker(t['role'], chinese)}: {t['content']}"
                 for t in group]
        summary = f"对话：{_quote(first, True)}" if chinese else f"Talk: {_quote(first, False)}"
        events.append({"summary": summary, "plot": _shorten(" ".join(lines), 600)})
    return events


def offline_persona(turns: list[dict], context: dict) -> str:
    name = str(context.get("character_name") or "角色")
    recent = _last_text(turns, "user")
    if _is_chinese(recent) or not recent:
        return (
            f"{name}最近经历了一些事：对方说过“{_quote(recent, True)}”。"
            f"这让{name}变得更加谨慎，也更愿意信任眼前的人。"
        )
    return (
        f'{name} went through something recently: they heard "{_quote(recent, False)}". '
        f"It made {name} more careful, and more willing to trust the person in front of them."
    )


def offline_recap(turns: list[dict], context: dict) -> str:
    name = str(context.get("character_name") or "角色")
    said = [t["content"] for t in turns if t["role"] == "user"]
    if not said:
        return f"{name}与对方还没有什么值得回顾的经历。"
    if _is_chinese(" ".join(said)):
        topics = "；".join(_quote(s, True) for s in said[-3:])
        return f"回顾：{name}与对方谈了{len(said)}次，话题包括：{topics}。"
    topics = "; ".join(_quote(s, False) for s in said[-3:])
    return f"Recap: {name} and the player talked {len(said)} times, about: {topics}."


def _transcript(messages: list[dict], context: dict) -> list[dict]:
    source = context.get("transcript") or messages
    return [
        {"role": m["role"], "content": str(m.get("content") or ""),
         **({"name": m["name"]} if isinstance(m.get("name"), str) and m["name"] else {})}
        for m in source
        if m.get("role") in ("user", "assistant")
    ]


def _last_text(messages: list[dict], role: str) -> str:
    for message in reversed(messages):
        if message.get("role") == role:
            return str(message.get("content") or "").strip()
    return ""


def _last_line_said(transcript: str) -> str:
    """A group prompt sends the scene since the speaker last spoke as one user message of
    "Name: text" paragraphs; the demo answers the newest one, without its name."""
    last = transcript.rsplit("\n\n", 1)[-1]
    name, colon, text = last.partition(": ")
    return text.strip() if colon and "\n" not in name else last


def _is_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


# A quote's own marks and the ones inside it: the demo puts its quotes in marks of its own, and
# a line said in quotes came back twice quoted (""Another stowaway? Wonderful."").
_ENCLOSING = {'"': '"', "“": "”", "「": "」", "『": "』", "'": "'"}
_INNER_EN = str.maketrans({'"': "'", "“": "'", "”": "'"})
_INNER_ZH = str.maketrans({'"': "‘", "“": "‘", "”": "’"})


def _unquoted(text: str, chinese: bool) -> str:
    """`text` without the marks around all of it; the marks left inside it single ones."""
    close = _ENCLOSING.get(text[:1])
    if close and len(text) > 1 and text.endswith(close) and close not in text[1:-1]:
        text = text[1:-1].strip()
    return text.translate(_INNER_ZH if chinese else _INNER_EN)


def _quote(text: str, chinese: bool) -> str:
    text = _unquoted(" ".join(text.split()), chinese)
    if chinese:
        return _shorten(text, 20)
    words = text.split(" ")
    return " ".join(words[:8]) + ("…" if len(words) > 8 else "")


def _speaker(role: str, chinese: bool) -> str:
    if chinese:
        return "用户" if role == "user" else "角色"
    return "Player" if role == "user" else "Character"
