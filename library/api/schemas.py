"""Request and response shapes of the library routes (personas, characters, backgrounds, the
SillyTavern tag names an account kept)."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import Field, StrictBool, StrictInt

from personalab.lib.body_fields import ExtraKeysKept

DescriptionPosition = Literal["prompt", "an_top", "an_bottom", "depth", "none"]
DescriptionRole = Literal["system", "user", "assistant"]
POSITION_HELP = ("where the description goes in the prompt, as SillyTavern's persona position: "
                 "prompt (its place in the prompt, the default), an_top / an_bottom (the top or "
                 "bottom of the author's note, on the turns the note is sent), depth (in the "
                 "chat at `description_depth` as `description_role`) or none")


LOREBOOK_HELP = ("the world-info book linked to the persona (SillyTavern's persona lorebook): "
                 "scanned with the chat's lore in every chat the persona plays")


class PersonaIn(ExtraKeysKept):
    name: str
    description: str = ""
    description_position: DescriptionPosition = Field("prompt", description=POSITION_HELP)
    description_depth: StrictInt = Field(2, ge=0, le=999, description="with position depth: "
                                         "how many messages from the end (0: after the last)")
    description_role: DescriptionRole = Field("system", description="with position depth: "
                                              "the message's role")
    visibility: Literal["private", "shared"] = "private"
    default: StrictBool = False
    persona_id: str | None = None
    lorebook_id: str | None = Field(None, description=LOREBOOK_HELP)


class PersonaUpdateIn(ExtraKeysKept):
    name: str | None = None
    description: str | None = None
    description_position: DescriptionPosition | None = Field(None, description=POSITION_HELP)
    description_depth: StrictInt | None = Field(None, ge=0, le=999)
    description_role: DescriptionRole | None = None
    visibility: Literal["private", "shared"] | None = None
    default: StrictBool | None = None
    lorebook_id: str | None = Field(None, description=LOREBOOK_HELP + '; "" unlinks it')


class PersonaOut(Schema):
    persona_id: str
    name: str
    description: str
    description_position: str = "prompt"
    description_depth: int = 2
    description_role: str = "system"
    visibility: str
    default: bool
    owner: str | None
    avatar_url: str | None
    created_at: str = ""
    lorebook_id: str | None = None


class PersonaList(Schema):
    personas: list[PersonaOut]


class PersonaSkipped(Schema):
    name: str
    reason: str


class PersonaBookMissing(Schema):
    name: str
    lorebook: str


class PersonasRestoredOut(Schema):
    created: list[PersonaOut]
    skipped: list[PersonaSkipped]
    default_persona_id: str | None = None
    books_missing: list[PersonaBookMissing] = Field(
        [], description="personas whose world-info book (by name) you have not imported; they "
        "are restored without it")


# Characters and backgrounds are files an author may hand-edit, so these shapes keep every key
# sent: the routes refuse one that is not a field here unless it repeats what GET shows
# (personalab/lib/body_fields.py). Values are checked by library/fields.py, whose refusals
# name the field (pydantic's would word them differently).

def _typed(kind: str | dict[str, Any], description: str) -> Any:
    extra = {"type": kind} if isinstance(kind, str) else kind
    return Field(None, description=description, json_schema_extra=extra)


_TEXT_LIST = {"type": "array", "items": {"type": "string"}}
_VISIBILITY = {"type": "string", "enum": ["private", "shared"]}


class CharacterIn(ExtraKeysKept):
    name: Any = _typed("string", "required on create; at most 200 characters")
    character_id: Any = _typed("string", "create only: the id to use (409 if it exists)")
    seen: Any = _typed("string", "the `seen` GET showed: a save made since is a 409 `changed`")
    base_persona: Any = _typed("string", "the character's description")
    greeting: Any = _typed("string", "first message of a new session")
    tags: Any = _typed(_TEXT_LIST, "tags")
    pinned_prompt: Any = _typed("string", "always sent, after the persona")
    lorebook_ids: Any = _typed(_TEXT_LIST, "ids of lorebooks you may use")
    visibility: Any = _typed(_VISIBILITY, "private (default) or shared")
    system_prompt: Any = _typed("string", "card field")
    post_history_instructions: Any = _typed("string", "card field")
    mes_example: Any = _typed("string", "card field")
    creator_notes: Any = _typed("string", "card field")
    alternate_greetings: Any = _typed(_TEXT_LIST, "card field: swipes of the first message, in "
                                                  "order (the whole list; empty ones are removed)")
    depth_prompt: Any = _typed(
        {"type": ["object", "null"], "properties": {
            "prompt": {"type": "string"},
            "depth": {"type": "integer", "minimum": 0, "maximum": 999, "default": 4},
            "role": {"type": "string", "enum": ["system", "user", "assistant"],
                     "default": "system"}}},
        "Character's Note (card data.extensions.depth_prompt), woven into the conversation at "
        "`depth` messages from its end; depth and role left out keep the stored ones; an empty "
        "prompt or null removes it")
    talkativeness: Any = _typed(
        {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "card data.extensions.talkativeness: how readily the character speaks in a group "
        "(0..1); null removes it (0.5 applies)")
    regex_scripts: Any = _typed(
        {"type": ["array", "null"], "items": {"type": "object"}},
        "card data.extensions.regex_scripts: SillyTavern regex scripts ({scriptName, findRegex "
        "'/pattern/flags', replaceString, trimStrings, placement [1 user input, 2 AI output, "
        "5 world info, 6 reasoning], disabled, markdownOnly, promptOnly, runOnEdit, minDepth, "
        "maxDepth}); each pattern is checked (400 with a sentence per field); [] or null "
        "removes them")
    regex_scripts_allowed: Any = _typed(
        "boolean", "whether the card's regex scripts run in your chats (off until you allow "
        "them, as SillyTavern asks; sent alone it needs only that you may use the character); "
        "a later change of the scripts by someone else turns it off again")
    card: Any = _typed("object", "the whole stored card (Character Card V2/V3 object, as GET "
                                 "shows it); the card fields above are laid over it")


class CharacterOut(ExtraKeysKept):
    character_id: str | None = None
    name: str | None = None
    owner: str | None = None
    visibility: str | None = None


class CharacterList(Schema):
    characters: list[CharacterOut]
    total: int = Field(description="how many there are in all")
    next_offset: int | None = Field(description="the `offset` of the next page; null on the last")


class CharacterCreated(Schema):
    character_id: str


class CharacterImported(CharacterCreated):
    regex_scripts: int = Field(0, description="how many regex scripts the card carries: they "
                               "stay off until you allow them (`regex_scripts_allowed`)")
    regex_scripts_allowed: bool = False
    warnings: list[str] = Field(default_factory=list, description="the world book the card "
                                "names (`extensions.world`) when you have no book of that name "
                                "(another account's is never linked); the card book's entries "
                                "whose character filters keep SillyTavern tag ids with no name "
                                "(they filter nothing; `POST lorebooks/{id}/tag_names` names "
                                "them), in the reader's language")
    named_from_kept: dict[str, str] = Field(
        default_factory=dict, description="the card book's SillyTavern tag ids named from the "
        "tags your account kept from the settings.json files it gave (id -> name)")


class CharacterCopied(CharacterCreated):
    copied_from: str


class BackgroundIn(ExtraKeysKept):
    name: Any = _typed("string", "required on create; at most 200 characters")
    background_id: Any = _typed("string", "create only: the id to use (409 if it exists)")
    world_setting: Any = _typed("string", "the world, sent with every turn")
    story_outline: Any = _typed(_TEXT_LIST, "plot points in order (texts or {content})")
    seen: Any = _typed("string", "the `seen` GET showed: a save made since is a 409 `changed`")
    lorebook_ids: Any = _typed(_TEXT_LIST, "ids of lorebooks you may use")
    visibility: Any = _typed(_VISIBILITY, "private (default) or shared")


class BackgroundOut(ExtraKeysKept):
    background_id: str | None = None
    name: str | None = None
    owner: str | None = None
    visibility: str | None = None
    outline_chats: dict[str, Any] | None = Field(
        None, description="PUT with story_outline: the chats playing the background, as "
                          "{moved, kept_position, busy, passed: {instance_ids, count}}")


class BackgroundList(Schema):
    backgrounds: list[BackgroundOut]
    total: int = Field(description="how many there are in all")
    next_offset: int | None = Field(description="the `offset` of the next page; null on the last")


class BackgroundCreated(Schema):
    background_id: str


class BackgroundCopied(BackgroundCreated):
    copied_from: str


class Deleted(Schema):
    deleted: str


class KeptTagName(Schema):
    id: str = Field(description="SillyTavern's tag id (a uuid, or a timestamp in older installs)")
    name: str


class KeptTagNames(Schema):
    tags: list[KeptTagName] = Field(description="oldest given first")
    count: int
    max: int = Field(description="the most kept: past it, the oldest given are dropped")


class KeptTagNamesForgotten(Schema):
    forgotten: int = Field(description="how many names were forgotten (0 when none could be "
                                       "read from a damaged list, which is forgotten whole)")
    count: int = Field(description="how many are kept now")


class TrashedOut(Schema):
    kind: Literal["character", "background", "lorebook", "persona"]
    id: str
    name: str
    owner: str | None = None
    deleted_at: str | None = Field(None, description="when it was deleted (UTC, ISO 8601); "
                                   "null for a delete from before this was noted")


class TrashList(Schema):
    items: list[TrashedOut]


class RestoredOut(Schema):
    kind: str
    id: str
    name: str


class CharacterChoiceOut(Schema):
    character_id: str
    name: str
    label: str = Field(description="the name, and when the account sees another character of "
                       "that name, what tells them apart (whose it is, which one): as the "
                       "pages' pickers show it")
    owner: str | None = Field(description="its author's username; null for the site's")
    tags: str = ""


class CharacterChoicesOut(Schema):
    characters: list[CharacterChoiceOut]
    more: bool = Field(description="other characters match (or, without `q`, are visible) "
                       "that this answer leaves out: type more to find them")
