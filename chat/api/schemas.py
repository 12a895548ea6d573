"""Request and response shapes of the chat routes (instances, chat, sessions, history)."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Field, Schema
from pydantic import StrictBool, StrictInt

from personalab.lib.body_fields import ClosedBody, ExtraKeysKept


class InstanceIn(ExtraKeysKept):
    character_id: str | None = None
    character_ids: list[str] | None = Field(
        None, description="Several characters in one conversation (the first is character_id).")
    reply_order: str | None = Field(
        None, description="Who answers next: natural (default), list, manual or everyone.")
    background_id: str | None = None
    persona_id: str | None = None


class InstanceCreated(Schema):
    instance_id: str


class InstanceOut(Schema):
    instance_id: str
    character_id: str
    background_id: str | None
    current_session_id: str
    created_at: str
    owner: str | None
    name: str = ""
    archived: bool = False
    character_ids: list[str] = Field([], description="the characters, in order (one, or the "
                                                     "members of a group)")


class InstanceList(Schema):
    instances: list[InstanceOut]


class InstanceDetail(InstanceOut):
    instance_state: dict[str, Any]
    character_state: dict[str, Any]
    director: dict[str, Any]
    sessions: list[str]
    generation: dict[str, Any] = {}  # the instance's own settings
    generation_effective: dict[str, Any] = {}  # what a turn sends (over the account defaults)
    index: dict[str, int] = Field(
        {"lines": 0, "embedded": 0},
        description="The memory index: lines indexed for keyword recall and how many of them "
                    "are embedded (embedded < lines while an import fills in the background).")


class RedoOut(Schema):
    """The reply's `done` event (see the WebSocket), with `answer_text` to read it whole."""

    model_config = {"extra": "allow"}
    instance_id: str
    trace_id: str | None = None
    session_id: str | None = None
    turn: int | None = None
    answer_text: str = ""
    warnings: list[dict[str, Any]] = []
    speaker: str | None = Field(None, description="in a conversation with several characters, "
                                "the member whose reply was redone")


class ChatIn(Schema):
    instance_id: str
    query: str | None = None
    stream: StrictBool = False
    speaker: str | None = Field(None, description="The character who answers (its id).")
    mode: Literal["turn", "aside", "impersonate"] = Field(
        "turn", description="`aside`: a quick word with one character (default the story's), "
                            "answered from its persona, pinned prompt, recaps and a few recent "
                            "lines, and never written into the story (seed 003 §14 Chat). "
                            "`impersonate`: the model suggests the player's next message "
                            "(SillyTavern's Impersonate; `query` is not used); nothing is "
                            "written to the story.")


class AsideOut(Schema):
    mode: Literal["aside"] = "aside"
    instance_id: str
    speaker: str
    name: str
    answer_text: str
    kept: bool = Field(description="kept in the instance's asides.jsonl (setting "
                                   "history.asides_keep); never in the story")
    error: str | None = None


class ImpersonateOut(Schema):
    mode: Literal["impersonate"] = "impersonate"
    instance_id: str
    answer_text: str = Field(description="the suggested player message (not sent, not saved)")
    error: str | None = None
    truncated: bool = Field(False, description="cut at PERSONALAB_MAX_MESSAGE_CHARS")


class ConversationOut(Schema):
    instance_id: str
    conv_key: str
    participants: list[str]
    character_id: str | None
    created_at: str


class ConversationList(Schema):
    conversations: list[ConversationOut]


class ReplyOut(Schema):
    speaker: str
    name: str
    trace_id: str
    turn: int
    answer_text: str


class ChatOut(Schema):
    """The (last) reply; `replies` lists every reply of a round with several characters (empty
    when the reply order is manual and nobody was picked: then trace_id is null)."""
    trace_id: str | None
    session_id: str
    instance_id: str
    turn: int
    answer_text: str
    warnings: list[dict[str, Any]]
    interrupted: bool
    empty: bool
    truncated: bool
    error: str | None
    speaker: str | None = None
    replies: list[ReplyOut] = []


class CurrentResponse(Schema):
    """What the session file holds for a turn; flags appear only when the line has them."""

    turn: int | None
    session_id: str
    status: str  # pending | streaming | complete
    content: str
    interrupted: Any = None
    empty: Any = None
    error: Any = None
    truncated: Any = None
    trace_id: Any = None
    speaker: Any = None  # a conversation's member who wrote the reply


class InstanceUpdateIn(ExtraKeysKept):
    """Only the fields sent change; `null` in `generation` removes a setting."""

    name: str | None = None
    archived: StrictBool | None = None
    generation: dict[str, Any] | None = None
    persona_id: str | None = None
    reply_order: str | None = Field(
        None, description="natural, everyone (SillyTavern's List order), list (one per round, "
                          "taking turns) or manual")
    allow_self_responses: StrictBool | None = Field(
        None, description="natural order: the member who spoke last may answer again")
    scenario_override: Any = Field(
        None, description="read in place of every member's card scenario; empty: the cards'",
        json_schema_extra={"type": "string"})
    # checked by the service (a 400 naming the field); SillyTavern's 0 / 1 / 2 are read too
    generation_mode: Any = Field(
        None, description="a group's cards in the prompt: swap (the speaker's only), append "
                          "(every unmuted member's joined) or append_muted (muted ones too)",
        json_schema_extra={"type": "string"})
    generation_mode_join_prefix: Any = Field(
        None, description="before each member's joined field; <FIELDNAME> and {{char}} filled",
        json_schema_extra={"type": "string"})
    generation_mode_join_suffix: Any = Field(
        None, description="after each member's joined field", json_schema_extra={"type": "string"})
    # checked by the service, so a wrong value is a 400 naming the field, not a 422
    lorebook_ids: Any = Field(None, description="ids of lorebooks you may use; null detaches all",
                              json_schema_extra={"type": "array", "items": {"type": "string"}})


class PlotStateIn(Schema):
    # checked by the service, so a wrong value is a 400 naming the field, not a 422
    current_plot_index: Any = Field(None, description="the outline point (1-based) the story "
                                    "is at now", json_schema_extra={"type": "integer"})
    current_status: Any = Field("in_progress", description="completed, in_progress or pending",
                                json_schema_extra={"type": "string"})


class PlotHoldIn(Schema):
    # checked by the service, so a wrong value is a 400 naming the field, not a 422
    held: Any = Field(None, description="true: the director stays on the current outline point "
                      "(markers for later points are not applied, no reminder pushes on); "
                      "false: the story moves on again", json_schema_extra={"type": "boolean"})


class PlayAsIn(Schema):
    # checked by the service, so a wrong value is a 400 naming the field, not a 422
    name: Any = Field(None, description="the player's name in an imported chat",
                      json_schema_extra={"type": "string"})


class PlayAsOut(Schema):
    persona_id: str
    name: str
    created: bool = Field(description="true when no persona of that name could be used")


class GenerationSettings(Schema):
    generation: dict[str, Any]


class GenerationSettingsIn(ExtraKeysKept):
    generation: dict[str, Any]


class MessageEditIn(Schema):
    """`text` replaces the message's text; `hidden` hides it from the model (it stays in the
    session) or shows it again. Give either or both."""

    fingerprint: str
    text: str | None = None
    hidden: StrictBool | None = None


class BranchIn(Schema):
    index: StrictInt
    fingerprint: str


class SwipeIn(Schema):
    turn: StrictInt
    alternative: StrictInt


class UndoIn(Schema):
    token: str


class HistoryChange(Schema):
    """A change that can be undone with `undo_token` until `undo_expires_at` (Unix seconds)."""

    undo_token: str | None = None
    undo_expires_at: float | None = None
    undo_seconds: float | None = None  # the undo window, counted from now on any clock
    changed: bool = True
    line: dict[str, Any] | None = None
    deleted: dict[str, Any] | None = None
    plot_state_restored: bool = False


class BranchOut(Schema):
    session_id: str
    branched_from: str
    index: int
    message_count: int
    plot_state_restored: bool


class SwipeOut(Schema):
    line: dict[str, Any]
    version: int
    versions: int
    director: Any = None
    director_reapplied: bool


class SessionRow(Schema):
    key: str
    session_id: str
    current: bool
    archived: bool
    created_at: str
    continued_from: Any = None
    message_count: int
    problems: int


class SessionList(Schema):
    sessions: list[SessionRow]


class MessagesPage(Schema):
    session_key: str
    session_id: Any = None
    archived: bool
    rows: list[dict[str, Any]]
    page: int
    pages: int
    total: int
    page_size: int
    problems: list[str]
    streaming: bool


class BackgroundSwitchIn(Schema):
    background_id: str | None = Field(..., description="null plays on no background")


class MemberIn(ClosedBody):
    character_id: str
    muted: StrictBool = False
    talkativeness: float | None = Field(
        None, ge=0, le=1, description="0..1; the card's talkativeness when left out.")


class MemberChangeIn(ClosedBody):
    muted: StrictBool | None = Field(None,
                                     description="A muted member answers only when picked.")
    talkativeness: float | None = Field(None, ge=0, le=1)


class MemberChangesOut(Schema):
    changes: list[dict[str, Any]] = Field(
        description="newest first: {id, action add|remove|change, character_id, name, at, "
                    "session_id, turn, participants_before, participants_after, "
                    "character_id_before, character_id_after, hand_over_to, changes?}")
