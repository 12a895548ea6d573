"""The lore of a turn: the lorebooks it reads (the chat's own, the persona's, the character's,
the background's), what fires in the messages they scan, the world-info budget and the
author's note."""

from __future__ import annotations

import dataclasses
import math
import secrets
from collections.abc import Callable
from typing import Any

from chat.groups.cards import card_join_for_turn, cards_joined
from chat.groups.members import is_group, members_of
from chat.play.first_included import MACRO as FIRST_INCLUDED_MACRO
from chat.play.macros import macro_values_for, player_time_zone
from chat.play.regex_scripts import turn_regex
from chat.play.turn_records import TurnContext
from chat.prompt.card_fields import CardFields, card_fields_read, scenario_overridden
from chat.prompt.conversation import line_placement
from chat.prompt.variables import lore_rng
from chat.prompt.window import ContextWindow
from chat.prompt.world_info import lore_sources, lore_speaker, lore_vectors
from library.lore import defaults as wi_defaults
from library.lore.activation import SCOPES
from library.lore.global_books import global_lorebook_ids
from library.lore.lorebook import lore_blocks, lore_outlets, lorebook_match
from library.lore.scan_window import lore_scan_window
from library.lore.st_settings import world_info_settings_effective
from library.selectors import (
    item_readable_by,
    persona_effective,
)
from personalab.lib.filestore.store import FileStore
from personalab.lib.line_macros import line_macros_replace
from personalab.lib.lines import narrator_sent
from personalab.lib.macros import macros_replace
from personalab.lib.store_errors import StoreError
from personalab.lib.tokens import count_tokens


def lore_for_turn(store: FileStore, ctx: TurnContext, window: ContextWindow) -> dict[str, Any]:
    persona = persona_effective(store, owner=ctx.instance_state.get("owner"),
                                persona_id=ctx.instance_state.get("persona_id"))
    lorebooks, scopes = _lorebooks_linked(store, ctx, persona)
    blocks: list[dict[str, Any]] = []
    fired: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    problems: list[str] = []
    outlets: dict[str, str] = {}
    vector_notes: list[str] = []
    if lorebooks:
        depth = lore_scan_window(lorebooks)
        session = _session_lines(store, ctx)
        override = ctx.instance_state.get("scenario_override")
        values = macro_values_for(character=ctx.character, persona=persona, lines=ctx.lines[:-1],
                                  scenario_override=override, chat_id=ctx.pick_chat,
                                  time_zone=player_time_zone(store, state=ctx.instance_state)) | {
                                      FIRST_INCLUDED_MACRO: ctx.first_included}
        # As the prompt sends them: SillyTavern stores a player's message with its macros
        # filled in ("I hug {{char}}" is "I hug Pia"), and scans what it stored after the
        # prompt's regex scripts (its chatForWI is the scripted chat).
        recent = _recent_lines(session, depth)
        regex = turn_regex(store, ctx)
        scanned = [{**line, "content": regex.text(
            line_macros_replace(line, values), line_placement(line), prompt=True,
            depth=len(recent) - 1 - at)} for at, line in enumerate(recent)]
        messages = [line["content"] for line in scanned]
        card = _card_scanned(store, ctx, override, user_name=values["user"])
        speaker_id = (ctx.speaker.character_id if ctx.speaker
                      else ctx.instance_state.get("character_id", ""))
        roll_seed = secrets.token_hex(8)  # this generation's: a regenerate rolls afresh
        match = lorebook_match(
            lorebooks, messages=(_named_texts(scanned, _line_namer(store, ctx, persona))
                                 if _names_scanned(store) else messages),
            macros=lambda text: macros_replace(text, values, rng=lore_rng(roll_seed, text)),
            count_tokens=count_tokens, budget_tokens=_world_info_budget(store, window),
            chat_length=_chat_length(session),
            timed=store.memory_json_read(ctx.instance_id, WORLD_INFO_TIMED, {}),
            sources=lore_sources(card, persona),
            speaker=lore_speaker(ctx.character, speaker_id, lorebooks=lorebooks,
                                 player=ctx.instance_state.get("owner")), scopes=scopes,
            **lore_vectors(lorebooks, messages, data_root=store.root, notes=vector_notes))
        if not ctx.dry_run:
            store.memory_json_write(ctx.instance_id, WORLD_INFO_TIMED, match.timed)
        blocks, fired, dropped, problems = ([{**block, "roll_seed": roll_seed}
                                             for block in lore_blocks(match)],
                                            match.fired, match.dropped,
                                            [*match.problems, *vector_notes])
        outlets = lore_outlets(match)
    note = store.memory_json_read(ctx.instance_id, "authors_note", {})
    note_due = ctx.turn % max(int(note.get("frequency", 1) or 1), 1) == 0
    if not note_due:
        blocks, fired, dropped = _note_lore_held(blocks, fired, dropped)
    persona = persona_effective(store, owner=ctx.instance_state.get("owner"),
                                persona_id=ctx.instance_state.get("persona_id"))
    blocks = authors_note_blocks(blocks, note if note_due else {},
                                 persona=persona if note_due else None)
    return {"blocks": blocks, "fired": fired, "dropped": dropped, "problems": problems,
            "outlets": outlets}


def _card_scanned(store: FileStore, ctx: TurnContext, override: Any, *,
                  user_name: str) -> CardFields:
    """The card fields entries may match (`match_character_description` …): the speaker's; in a
    group's join mode the description, personality and scenario as joined for its prompt, as
    SillyTavern's getCharacterCardFields hands getGroupCharacterCards' fields to the scan (the
    depth prompt and creator's notes stay the speaker's, as there)."""
    base_persona = ctx.character_state.get("base_persona", "")
    card = scenario_overridden(card_fields_read(ctx.character, base_persona=base_persona),
                               override)
    join = card_join_for_turn(
        store, state=ctx.instance_state, instance_id=ctx.instance_id,
        speaker_id=ctx.speaker.character_id if ctx.speaker and is_group(ctx.instance_state)
        else None, speaker_base_persona=base_persona, user_name=user_name,
        pick_seed=ctx.pick_chat)
    if join is None:
        return card
    joined = cards_joined(join)
    return dataclasses.replace(card, description=joined["description"],
                               personality=joined["personality"], scenario=joined["scenario"])


WORLD_INFO_TIMED = "worldinfo_timed"
WORLD_INFO_BUDGET_PERCENT = wi_defaults.BUDGET_PERCENT


def _lorebooks_linked(store: FileStore, ctx: TurnContext, persona: dict[str, Any]
                      ) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The books a turn reads, and each one's scope (`_scopes_linked`); of them, those the
    chat's owner may read. A shared card that links its author's private book plays without it
    in another account's chat (the book's text would reach that player's prompt inspector);
    the author's page says so. The links stay, so sharing the book brings it back."""
    owner = ctx.instance_state.get("owner")
    scopes = _scopes_linked(ctx, persona,
                            account_books=global_lorebook_ids(store, username=owner))
    lorebooks = []
    for lorebook_id in scopes:
        try:
            book = store.lorebook_read(lorebook_id)
        except (StoreError, ValueError):
            continue
        if item_readable_by(book, username=owner):
            lorebooks.append(book)
    return _copies_dropped(lorebooks), scopes


def _copies_dropped(lorebooks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`lorebooks` without a later exact copy of an earlier one (`_book_copy_key`); entries are
    compared only between books of one name, so a turn of differently named books pays nothing."""
    names = [book.get("name") for book in lorebooks]
    kept, copies = [], set()
    for book in lorebooks:
        if names.count(book.get("name")) > 1:
            copy_key = _book_copy_key(book)
            if copy_key in copies:
                continue
            copies.add(copy_key)
        kept.append(book)
    return kept


def _book_copy_key(book: dict[str, Any]) -> tuple[Any, ...]:
    """A book's name and entries' keys and text. SillyTavern knows a book by its name, so a
    card's book imported beside the world file it came from (its Seraphina and Eldoria) is one
    book there and is read once; here they are two, and a copy linked in a second scope sent
    every entry twice. Only an exact copy is left out: books that merely share a name differ."""
    entries = book.get("entries") if isinstance(book.get("entries"), list) else []
    return (book.get("name"), tuple(sorted(
        (repr(entry.get("keys")), repr(entry.get("secondary_keys")), str(entry.get("content")))
        for entry in entries if isinstance(entry, dict))))


def _scopes_linked(ctx: TurnContext, persona: dict[str, Any], *,
                   account_books: list[str]) -> dict[str, str]:
    """Each linked book's scope in SillyTavern's sense, which decides the order the scan weighs
    entries in: the chat's own picks are its chat lore, the persona's book its persona lore
    (SillyTavern 1.12.8's `getPersonaLore`), the speaking character's books (its kept copy's
    too; in a group only the speaker's, as another member's card lore never reaches this
    member's prompt) its character lore, the background's and the owner's books for all its
    chats (`account_books`: SillyTavern's globally selected ones) its global lore. A book
    linked twice is read once, in the scope SillyTavern keeps it in: global, else chat, else
    persona, else character."""
    linked = {"global": _id_list(ctx.background.get("lorebook_ids")) + account_books,
              "chat": _id_list(ctx.instance_state.get("lorebook_ids")),
              "persona": _id_list([persona.get("lorebook_id")]),
              "character": _id_list(ctx.character.get("lorebook_ids"))}
    scopes: dict[str, str] = {}
    for scope, lorebook_ids in linked.items():
        for lorebook_id in lorebook_ids:
            scopes.setdefault(lorebook_id, scope)
    return dict(sorted(scopes.items(), key=lambda item: SCOPES.index(item[1])))  # scan order


def _id_list(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _world_info_budget(store: FileStore, window: ContextWindow) -> int:
    """SillyTavern's world-info budget (`checkWorldInfo`): a share of the context its prompt
    may fill (`getMaxContextSize`: the window less the reply), rounded half up, at least 1,
    and no more than the budget cap when one is set (`world_info_budget_cap`, 0: none)."""
    settings = world_info_settings_effective(store)
    budget = max(1, math.floor(window.prompt_room * settings["world_info_budget"] / 100 + 0.5))
    cap = settings["world_info_budget_cap"]
    return cap if 0 < cap < budget else budget


def authors_note_blocks(blocks: list[dict[str, Any]], note: dict[str, Any],
                        persona: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Lore placed at the top or bottom of the author's note joins the note's block (as in
    SillyTavern: top + note + bottom, at the note's depth and role), and so does a persona
    description placed there (`persona`: persona_effective's; SillyTavern puts it around the
    note before the lore goes around both)."""
    top = [b["content"] for b in blocks if b.get("position") == "an_top"]
    bottom = [b["content"] for b in blocks if b.get("position") == "an_bottom"]
    rest = [b for b in blocks if b.get("position") not in ("an_top", "an_bottom")]
    placed = (persona or {}).get("description_position")
    description = str((persona or {}).get("description") or "")
    text = str(note.get("text") or "")
    if description and placed == "an_top":
        text = f"{description}\n{text}"
    elif description and placed == "an_bottom":
        text = f"{text}\n{description}"
    # SillyTavern's own joins (addPersonaDescriptionExtensionPrompt, then checkWorldInfo's
    # `${top}\n${note}\n${bottom}`), trimmed as getExtensionPrompt trims: an empty note
    # leaves a blank line between the lore at its top and at its bottom.
    text = "\n".join(["\n".join(top), text, "\n".join(bottom)]).strip()
    if not text:
        return rest
    return [*rest, {"name": "authors_note", "content": text, "position": "depth",
                    "depth": int(note.get("depth", 4)), "role": note.get("role", "system"),
                    "priority": 1000}]


AT_NOTE = ("an_top", "an_bottom")


def _note_lore_held(blocks: list[dict[str, Any]], fired: list[dict[str, Any]],
                    dropped: list[dict[str, Any]]) -> tuple[list, list, list]:
    """Lore placed at the author's note goes only with the note, on the turns it is sent
    (SillyTavern's `shouldWIAddPrompt`); on the others it is listed as dropped."""
    held = [entry for entry in fired if entry.get("position") in AT_NOTE]
    return ([block for block in blocks if block.get("position") not in AT_NOTE],
            [entry for entry in fired if entry.get("position") not in AT_NOTE],
            [*dropped, *({**entry, "reason": "placed at the author's note, which is not sent "
                                             f"this turn; would have fired: {entry['reason']}"}
                         for entry in held)])


def _session_lines(store: FileStore, ctx: TurnContext) -> list[dict[str, Any]]:
    """The whole session's lines (ctx.lines when the turn read them all): the lore scans back
    as far as its depth, and the chat's length is its clock (read once, from the cache)."""
    if not ctx.first_index:
        return ctx.lines
    read = store.session_read(ctx.instance_id, ctx.session_id, cached=True)
    return [*read.lines[:ctx.first_index], *ctx.lines]


def _chat_length(lines: list[dict[str, Any]]) -> int:
    """How many messages the chat has, the new one included: SillyTavern's clock for sticky,
    cooldown and delay (a turn adds two)."""
    return sum(1 for line in lines if _scanned(line) and not line.get("hidden"))


def _scanned(line: dict[str, Any]) -> bool:
    # What SillyTavern scans for lore is what it sends: messages and /sys narrator lines.
    return bool(line.get("role")) or narrator_sent(line)


def _recent_lines(lines: list[dict[str, Any]], count: int | None) -> list[dict[str, Any]]:
    """The `count` newest messages, oldest first, without walking the session. A hidden
    message is not scanned for lore, as the model is not sent it (SillyTavern)."""
    recent = []
    for line in reversed(lines):
        if count is not None and len(recent) >= count:
            break
        if _scanned(line) and not line.get("hidden"):
            recent.append(line)
    recent.reverse()
    return recent


def _names_scanned(store: FileStore) -> bool:
    """SillyTavern's `world_info_include_names` (on by default): each message is scanned as
    "Name: text", so an entry keyed on the character's or the persona's name fires when they
    speak (modules/prompt.json `world_info_include_names`)."""
    return world_info_settings_effective(store)["world_info_include_names"]


def _line_namer(store: FileStore, ctx: TurnContext,
                persona: dict[str, Any]) -> Callable[[dict[str, Any]], str]:
    """The name each message was said under: its own (an imported or a group line names
    it), else the persona's for the player, the member's or the chat's character's for a reply."""
    members = ({member.character_id: member.name
                for member in members_of(store, ctx.instance_state)}
               if is_group(ctx.instance_state) else {})
    character = str(ctx.instance_state.get("character_id") or "")
    if not members:
        members = {character: str(ctx.character.get("name") or character)}

    def name_of(line: dict[str, Any]) -> str:
        if line.get("name"):
            return str(line["name"])
        if line.get("role") == "user":
            return str(persona.get("name") or "")
        if line.get("role") == "assistant":
            return members.get(str(line.get("speaker") or character), "")
        return ""
    return name_of


def _named_texts(lines: list[dict[str, Any]], name_of: Callable[[dict[str, Any]], str]
                 ) -> list[str]:
    texts = []
    for line in lines:
        name = name_of(line)
        texts.append(f"{name}: {line.get('content', '')}" if name else line.get("content", ""))
    return texts


PERSONA_PRIORITY = 950  # dropped after the card's depth prompt (900), before the note (1000)


def persona_depth_blocks(persona: dict[str, Any]) -> list[dict[str, Any]]:
    """A persona description placed in the chat at a depth (SillyTavern's "In-chat @ Depth"):
    one block at its depth and role."""
    description = str(persona.get("description") or "")
    if persona.get("description_position") != "depth" or not description.strip():
        return []
    return [{"name": "persona_description", "content": description, "position": "depth",
             "depth": int(persona.get("description_depth", 2)),
             "role": persona.get("description_role") or "system",
             "priority": PERSONA_PRIORITY}]
