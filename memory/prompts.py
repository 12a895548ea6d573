"""The texts memory sends to the LLM: summarize a session, update the evolved persona, recap.

Chinese by default (the seeds' language); any locale starting with "en" gets the English texts.
Each function returns the `messages` list for `provider.complete(...)`.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def transcript_text(turns: list[dict[str, Any]], *, character_name: str, locale: str,
                    player_name: str | None = None) -> str:
    """The lines, each after its speaker's name: a line's own `name` (the persona it was said
    under), else the player's `player_name` (the chat's `{{user}}`), else "User"."""
    labels = _LABELS[prompt_locale(locale)]
    lines = []
    last_turn = None
    for line in turns:
        turn = line.get("turn")
        if turn is not None and turn != last_turn:
            lines.append(labels["turn"].format(turn=turn))
            last_turn = turn
        # A group's replies each carry their speaker's name.
        speaker = line.get("name") or (
            (player_name or labels["user"]) if line.get("role") == "user" else character_name)
        lines.append(f"{speaker}: {line.get('content', '')}")
    return "\n".join(lines) or labels["none"]


def summarize_messages(*, character_name: str, summaries: list[str], turns: list[dict[str, Any]],
                       locale: str = "zh",
                       player_name: str | None = None) -> list[dict[str, str]]:
    key = prompt_locale(locale)
    labels = _LABELS[key]
    parts = []
    if summaries:
        parts.append(labels["earlier"] + "\n" + "\n".join(f"- {s}" for s in summaries))
    parts.append(labels["session"] + "\n"
                 + transcript_text(turns, character_name=character_name, locale=key,
                                   player_name=player_name))
    return [{"role": "system", "content": _SUMMARIZE[key]},
            {"role": "user", "content": "\n\n".join(parts)}]


_GROUP_PERSONA = {
    "zh": (
        "你负责维护角色「{name}」的成长人格。「{name}」身处一个多人场景，同场的还有{others}"
        "和玩家{player}。初始人格永不改变；成长人格描述「{name}」经历之后的变化：信念、行为模式、"
        "与其他每个角色和玩家各自的关系深度、当前情绪。只用定性描述，不用数值。\n"
        "请结合旧的成长人格和最近的对话（每行前是说话者的名字），只为「{name}」写出新的成长人格。"
        "保留仍然成立的内容，更新已经改变的内容。只输出新的成长人格正文，不要标题、不要解释。"
    ),
    "en": (
        "You maintain the evolved persona of the character \"{name}\", one of several characters "
        "in a scene with {others} and the player{player}. The base persona never changes; the "
        "evolved persona describes how \"{name}\" has changed: beliefs, habits, closeness to each "
        "of the others and to the player, current mood. Qualitative only, no numbers.\n"
        "Combine the old evolved persona with the recent conversation (each line after its "
        "speaker's name) and write the new evolved persona of \"{name}\" only. Keep what still "
        "holds, update what changed. Output only the new text, no heading, no explanation."
    ),
}


def persona_update_messages(*, character_name: str, base_persona: str, evolved_persona: str,
                            turns: list[dict[str, Any]], locale: str = "zh",
                            others: Sequence[str] = (),
                            player_name: str | None = None) -> list[dict[str, str]]:
    """The evolved-persona request for one character. With other characters in the scene (the
    conversation's `others`, or who else speaks in `turns`) it is framed for that member among
    them and the player (`player_name`), who was "the other person" of a two-person chat."""
    key = prompt_locale(locale)
    labels = _LABELS[key]
    group = bool(others) or len(_names_in((), turns)) > 1
    others = [name for name in _names_in(others, turns)
              if name.casefold() != character_name.casefold()] if group else []
    body = "\n\n".join([
        labels["base"] + "\n" + (base_persona.strip() or labels["none"]),
        labels["old"] + "\n" + (evolved_persona.strip() or labels["none"]),
        labels["recent"] + "\n" + transcript_text(turns, character_name=character_name,
                                                  locale=key, player_name=player_name),
    ])
    system = (_GROUP_PERSONA[key].format(name=character_name, others=_listed(others, key),
                                         player=_player(player_name, key))
              if others else _PERSONA[key].format(name=character_name))
    return [{"role": "system", "content": system}, {"role": "user", "content": body}]


def _names_in(names: Sequence[str], turns: list[dict[str, Any]]) -> list[str]:
    """`names`, then the other characters who speak in `turns`, each once (case aside)."""
    said = [str(line["name"]) for line in turns
            if line.get("role") == "assistant" and line.get("name")]
    kept: dict[str, str] = {}
    for name in [*names, *said]:
        kept.setdefault(name.casefold(), name)
    return list(kept.values())


def _listed(names: Sequence[str], key: str) -> str:
    return "、".join(f"「{n}」" for n in names) if key == "zh" else ", ".join(
        f'"{n}"' for n in names)


def _player(player_name: str | None, key: str) -> str:
    if not player_name:
        return ""
    return f"「{player_name}」" if key == "zh" else f' "{player_name}"'


_GROUP_RECAP = {
    "zh": (
        "请用一到三句话概括下面这几轮对话中发生的事情（前情提要），以第三人称叙述，"
        "写明角色{names}和玩家{player}做了什么、说定了什么。只输出概括本身。"
    ),
    "en": (
        "Summarize what happened in the rounds below in one to three sentences (a recap), in the "
        "third person: what the characters {names} and the player{player} did and agreed. "
        "Output only the recap."
    ),
}


def recap_messages(*, character_name: str, turns: list[dict[str, Any]], locale: str = "zh",
                   members: Sequence[str] = (),
                   player_name: str | None = None) -> list[dict[str, str]]:
    """The recap request; a conversation of several characters (its `members`, or who speaks
    in `turns`) names them all and the player (`player_name`): a group's recap was asked of
    "Mira and the other person", and reached every member's prompt."""
    key = prompt_locale(locale)
    # One character whose imported lines bear another name is still a two-person chat.
    group = len(members) > 1 or len(_names_in((), turns)) > 1
    system = (_GROUP_RECAP[key].format(names=_listed(_names_in(members, turns), key),
                                       player=_player(player_name, key))
              if group else _RECAP[key].format(name=character_name))
    return [{"role": "system", "content": system},
            {"role": "user", "content": transcript_text(
                turns, character_name=character_name, locale=key, player_name=player_name)}]
