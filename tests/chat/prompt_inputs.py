"""What the prompt builder takes, as the prompt tests build it without a chat: Alserqi's story
with its director and config, and the system message of what was built."""

from __future__ import annotations

from chat.prompt.inputs import PromptInputs


def make_config(*, max_total: int = 100000, middle: int = 20000, load_all: bool = True) -> dict:
    """Thresholds, limits and preferences, with these token limits and conversation_load_all."""
    return {
        "thresholds": {"rag_fallback_threshold": 3, "summary_last_n_turns": 5},
        "limits": {
            "max_total_tokens": max_total,
            "middle_section_warning_tokens": middle,
            "conversation_max_tokens": 100000,
        },
        "preferences": {"summary_order": "summary_first", "conversation_load_all": load_all},
    }


def make_lines(turns: int, current: str = "你还记得我们之前的约定吗？") -> list[dict]:
    """`turns` numbered question/answer pairs, then the player's `current` line."""
    lines = []
    for turn in range(1, turns + 1):
        lines.append({"role": "user", "content": f"问题{turn}", "turn": turn})
        lines.append({"role": "assistant", "content": f"回答{turn}", "turn": turn})
    lines.append({"role": "user", "content": current, "turn": turns + 1})
    return lines


def make_director(reminder: dict | None = None) -> dict:
    """A four-step outline at its third step, with `reminder` if given."""
    return {
        "outline": [
            {"index": 1, "content": "发现背叛者的线索", "status": "completed"},
            {"index": 2, "content": "潜入敌人据点", "status": "completed"},
            {"index": 3, "content": "与仇人对峙", "status": "in_progress"},
            {"index": 4, "content": "做出关键选择", "status": "pending"},
        ],
        "instruction": "如果剧情推进，请在回复中输出标记：[PROGRESS:X:status]",
        "reminder": reminder,
        "finished": False,
    }


def make_inputs(**overrides) -> PromptInputs:
    """Alserqi's story as the prompt builder takes it (three turns, a director, a recalled
    line), `overrides` over its fields."""
    values = {
        "character_name": "Alserqi",
        "user_name": "User",
        "base_persona": "{{ char }}，废土黑帮老大，曾经掌控北区，被心腹背叛...",
        "evolved_persona": "经历背叛后变得多疑，不再轻易相信他人...",
        "world_setting": "2087年，核战后50年...",
        "background_name": "废土复仇记",
        "director": make_director(),
        "recalled": [{"text": "第12轮：玩家让Alserqi承诺不冲动送死", "source": "turn sess_003#12"}],
        "lines": make_lines(3),
        "config": make_config(),
    }
    values.update(overrides)
    return PromptInputs(**values)


def system_text(result) -> str:
    """The built prompt's first message, which must be the system's."""
    assert result.messages[0]["role"] == "system"
    return result.messages[0]["content"]
