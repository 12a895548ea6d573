"""The texts memory sends to the LLM: summarize a session, update the evolved persona, recap.

Chinese by default (the seeds' language); any locale starting with "en" gets the English texts.
Each function returns the `messages` list for `provider.complete(...)`.
"""

from __future__ import annotations

from typing import Any

_SUMMARIZE = {
    "zh": (
        "你是长篇角色扮演的记录员。请把下面这段会话整理成按时间顺序排列的情节点。\n"
        "每个情节点包含两部分：\n"
        "- summary：一两句话的情节点摘要（谁、做了什么、结果如何），用于延续历史和快速回忆；\n"
        "- plot：详细剧情素材，保留关键对话、细节、承诺、地点和人物关系，用于之后深入回忆。\n"
        "只输出一个 JSON 对象，不要输出其他文字：\n"
        '{"events": [{"summary": "…", "plot": "…"}]}'
    ),
    "en": (
        "You keep the record of a long role-play. Turn the session below into plot points in "
        "chronological order. Each plot point has two parts:\n"
        "- summary: one or two sentences (who did what, with what result), to carry the story on;\n"
        "- plot: detailed material that keeps key lines, details, promises, places and "
        "relationships, for recalling it in depth later.\n"
        "Output only one JSON object and nothing else:\n"
        '{"events": [{"summary": "...", "plot": "..."}]}'
    ),
}

_PERSONA = {
    "zh": (
        "你负责维护角色「{name}」的成长人格。初始人格永不改变；成长人格描述角色经历之后的变化："
        "信念、行为模式、与对方的关系深度、当前情绪。只用定性描述，不用数值。\n"
        "请结合旧的成长人格和最近的对话，写出新的成长人格。保留仍然成立的内容，"
        "更新已经改变的内容。只输出新的成长人格正文，不要标题、不要解释。"
    ),
    "en": (
        "You maintain the evolved persona of the character \"{name}\". The base persona never "
        "changes; the evolved persona describes how the character has changed: beliefs, habits, "
        "closeness to the other person, current mood. Qualitative only, no numbers.\n"
        "Combine the old evolved persona with the recent conversation and write the new evolved "
        "persona. Keep what still holds, update what changed. Output only the new text, no "
        "heading, no explanation."
    ),
}

_RECAP = {
    "zh": (
        "请用一到三句话概括下面这几轮对话中发生的事情（前情提要），以第三人称叙述，"
        "写明角色「{name}」和对方做了什么、说定了什么。只输出概括本身。"
    ),
    "en": (
        "Summarize what happened in the rounds below in one to three sentences (a recap), in the "
        "third person: what the character \"{name}\" and the other person did and agreed. "
        "Output only the recap."
    ),
}

_LABELS = {
    "zh": {
        "user": "用户", "turn": "第{turn}轮",
        "earlier": "之前的剧情摘要（仅供参考，不要重复整理）：",
        "session": "本次会话：", "base": "初始人格（不变）：", "old": "旧的成长人格：",
        "recent": "最近的对话：", "none": "（无）",
    },
    "en": {
        "user": "User", "turn": "Round {turn}", "earlier": "Earlier plot summaries (context only, "
        "do not summarize them again):", "session": "This session:", "base": "Base persona "
        "(never changes):", "old": "Old evolved persona:", "recent": "Recent conversation:",
        "none": "(none)",
    },
}


def prompt_locale(locale: str | None) -> str:
    return "en" if str(locale or "").lower().startswith("en") else "zh"


def transcript_text(turns: list[dict[str, Any]], *, character_name: str, locale: str) -> str:
    labels = _LABELS[prompt_locale(locale)]
    lines = []
    last_turn = None
    for line in turns:
        turn = line.get("turn")
        if turn is not None and turn != last_turn:
            lines.append(labels["turn"].format(turn=turn))
            last_turn = turn
        # A group's replies each carry their speaker's name.
        speaker = labels["user"] if line.get("role") == "user" else (
            line.get("name") or character_name)
        lines.append(f"{speaker}: {line.get('content', '')}")
    return "\n".join(lines) or labels["none"]


def summarize_messages(*, character_name: str, summaries: list[str], turns: list[dict[str, Any]],
                       locale: str = "zh") -> list[dict[str, str]]:
    key = prompt_locale(locale)
    labels = _LABELS[key]
    parts = []
    if summaries:
        parts.append(labels["earlier"] + "\n" + "\n".join(f"- {s}" for s in summaries))
    parts.append(labels["session"] + "\n"
                 + transcript_text(turns, character_name=character_name, locale=key))
    return [{"role": "system", "content": _SUMMARIZE[key]},
            {"role": "user", "content": "\n\n".join(parts)}]


def persona_update_messages(*, character_name: str, base_persona: str, evolved_persona: str,
                            turns: list[dict[str, Any]],
                            locale: str = "zh") -> list[dict[str, str]]:
    key = prompt_locale(locale)
    labels = _LABELS[key]
    body = "\n\n".join([
        labels["base"] + "\n" + (base_persona.strip() or labels["none"]),
        labels["old"] + "\n" + (evolved_persona.strip() or labels["none"]),
        labels["recent"] + "\n" + transcript_text(turns, character_name=character_name, locale=key),
    ])
    return [{"role": "system", "content": _PERSONA[key].format(name=character_name)},
            {"role": "user", "content": body}]


_GROUP_RECAP = {
    "zh": (
        "请用一到三句话概括下面这几轮对话中发生的事情（前情提要），以第三人称叙述，"
        "写明角色{names}和玩家做了什么、说定了什么。只输出概括本身。"
    ),
    "en": (
        "Summarize what happened in the rounds below in one to three sentences (a recap), in the "
        "third person: what the characters {names} and the player did and agreed. "
        "Output only the recap."
    ),
}


def recap_messages(*, character_name: str, turns: list[dict[str, Any]],
                   locale: str = "zh") -> list[dict[str, str]]:
    """The recap request; rounds where several characters spoke name them all (a group's
    recap was asked of "Mira and the other person", and reached every member's prompt)."""
    key = prompt_locale(locale)
    speakers = list(dict.fromkeys(str(line["name"]) for line in turns
                                  if line.get("role") == "assistant" and line.get("name")))
    system = (_GROUP_RECAP[key].format(names=("、" if key == "zh" else ", ").join(
        f"「{name}」" if key == "zh" else f'"{name}"' for name in speakers))
        if len(speakers) > 1 else _RECAP[key].format(name=character_name))
    return [{"role": "system", "content": system},
            {"role": "user",
             "content": transcript_text(turns, character_name=character_name, locale=key)}]
