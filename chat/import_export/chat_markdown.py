"""A session as a Markdown transcript (the chat drawer's "Markdown" download): read by people,
never imported back."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, pgettext

from chat.import_export.chat_formats import SUMMARY_TYPE


def _quote(text: str) -> str:
    return "\n".join(f"> {part}" if part else ">" for part in text.splitlines() or [""])


def chat_export_markdown(*, lines: list[dict[str, Any]], user_name: str, character_name: str,
                         title: str, cast: str | None = None) -> str:
    """`character_name` heads the replies that carry no name of their own; `cast` (default: it)
    is who the chat is with, a group's members. Its labels are in the reader's language, as its
    title is (a Chinese export read "**旅人** (turn 1)")."""
    colon = pgettext("after a label in a chat's Markdown export", ":")
    parts = [f"# {title}", f"*{user_name} & {cast or character_name}*"]
    for line in lines:
        content = (line.get("content") or "").strip()
        if line.get("type") == SUMMARY_TYPE:
            parts.append(_quote(f"**{gettext('Summary')}{colon}** {content}"))
        elif line.get("type") == "note":
            parts.append(_quote(f"**{line.get('name') or gettext('Note')}{colon}** {content}"))
        elif line.get("role") in ("user", "assistant"):
            name = line.get("name") or (user_name if line["role"] == "user" else character_name)
            turn = line.get("turn")
            label = f"**{name}**"
            if isinstance(turn, int) and turn:
                label += gettext(" (turn %(turn)s)") % {"turn": turn}
            label += gettext(" (hidden from the model)") if line.get("hidden") else ""
            parts.append(f"{label}\n\n{content}")
    return "\n\n".join(parts) + "\n"
