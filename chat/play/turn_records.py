"""What a turn carries from its load to its reply: the chat as read for this turn
(`TurnContext`, chat/play/context.py fills it) and what was prepared from it (`Prepared`). Apart
from the rooms that fill and read them, so lore and memory take the type without a circle."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chat.groups.speakers import Pick
from chat.play.variables import ChatVariables
from chat.prompt.card_fields import CardFields
from chat.prompt.inputs import PromptResult
from personalab.lib.errors import AppError
from personalab.lib.filestore.session_read import LinesBefore


@dataclass
class TurnContext:
    instance_id: str
    session_id: str
    turn: int
    user_text: str
    instance_state: dict[str, Any]
    character_state: dict[str, Any]
    character: dict[str, Any]
    background: dict[str, Any]
    config: dict[str, Any]
    lines: list[dict[str, Any]]
    problems: list[str]
    reply_extra: dict[str, Any] = field(default_factory=dict)
    continue_from: str = ""
    # Regenerate / continue: the position of the reply the new one replaces, and which.
    replace_from: int | None = None
    redo: str = ""
    plot_state_before: dict[str, Any] = field(default_factory=dict)
    speaker: Pick | None = None
    trigger: bool = False
    # Only the newest lines read (load_all off): where they start, what lies before them.
    first_index: int = 0
    lines_before: LinesBefore | None = None
    token_counts: dict[str, int] = field(default_factory=dict)  # by text, from the line index
    # The lines before them, parsed on demand (a group's prompt weighs them as its speaker
    # reads them), and whose replies they hold (their own macros in recalled lines).
    before_source: Any = None
    speakers_before: frozenset[str] = frozenset()
    variables: ChatVariables = field(default_factory=ChatVariables)  # {{setvar}}'s, saved
    # A prompt built only to be sent (an impersonation): lore timers do not advance.
    dry_run: bool = False
    # {{firstIncludedMessageId}}: the oldest message id the last turn's prompt held (or "").
    first_included: str = ""
    # What the chat's {{pick}} is seeded by (chat_pick_seed), when it is not the chat's id.
    pick_seed: str = ""

    @property
    def pick_chat(self) -> str:
        return self.pick_seed or self.instance_id


@dataclass
class Prepared:
    prompt: PromptResult
    recall: dict[str, Any]
    director: dict[str, Any] | None
    lore: dict[str, Any]
    warnings: list[dict[str, Any]]
    llm_context: dict[str, Any]
    card: CardFields = field(default_factory=CardFields)


class TurnRefused(AppError):
    """The turn did not start or was refused before the LLM."""

    def __init__(self, message: str, *, code: str, status: int, trace_id: str | None = None):
        extra = {"trace_id": trace_id} if trace_id else {}
        super().__init__(message, code=code, status=status, **extra)
        self.trace_id = trace_id
