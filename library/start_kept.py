"""What a player chose in a chat's start form, kept when the start is refused (a limit, a
character they may not play, too few ticked), so the form comes back with it beside the refusal:
the refusal is a redirect to the page the form was on (personalab.middleware), which reads this
once. Bounded: what a form sends is cut to the sizes its fields allow."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

SESSION_KEY = "start_refused"
TEXT_MAX = 200
TICKED_MAX = 50


def start_choices_keep(request: HttpRequest, *, group: bool) -> None:
    post = request.POST
    choices = {name: post.get(name, "")[:TEXT_MAX]
               for name in ("character_id", "background_id", "reply_order", "player_name")}
    choices["character_ids"] = [i[:TEXT_MAX] for i in post.getlist("character_ids")[:TICKED_MAX]]
    choices["order"] = post.get("order", "")[:TEXT_MAX * TICKED_MAX]
    request.session[SESSION_KEY] = {"group" if group else "single": choices}


def start_choices_taken(request: HttpRequest) -> dict[str, Any]:
    """{"single": {...}} or {"group": {...}}, the form the refused start came from; {} when
    none was refused. Read once: a reload shows the form as new."""
    kept = request.session.pop(SESSION_KEY, None) if hasattr(request, "session") else None
    return kept if isinstance(kept, dict) else {}


def start_ids_kept(kept: dict[str, Any]) -> list[str]:
    """The characters a kept form had chosen, for its picker to offer whatever it lists."""
    form = kept.get("single") or kept.get("group") or {}
    return [i for i in [form.get("character_id", ""), *form.get("character_ids", [])] if i]
