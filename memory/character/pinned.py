"""Pinned ("never forget") prompts: a character's own, an instance's override, and the override
for one set of participants (convKey, seed 003 §3.5)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.utils.translation import gettext

from library.selectors import character_for_chat_optional
from memory.action_base import main_character
from memory.errors import MemoryActionError
from personalab.lib.filestore.jsonfile import read_json, utc_now, write_json_atomic
from personalab.lib.filestore.store import FileStore
from personalab.lib.participants import conv_key, member_ids, participants_of
from personalab.lib.store_errors import MissingFile, StoreError

PINNED_FILE = "pinned"


def pinned_prompt_effective(store: FileStore, *, instance_id: str,
                            character_id: str) -> tuple[str, str]:
    """(text, "conv_key" | "instance" | "character" | "none") for one member of a conversation
    (seed 003 §3.5): the override set for this participant set (convKey) and this character
    wins, then this instance's own override (it belongs to the instance's character), then the
    character's own pinned prompt."""
    try:
        state = store.instance_state_read(instance_id)
    except (StoreError, ValueError):
        state = {}
    text = pinned_overrides_read(store, conv_key=conv_key(participants_of(state))).get(
        character_id) if state else None
    if text:
        return text, "conv_key"
    try:
        override = store.memory_json_read(instance_id, PINNED_FILE, {})
    except (StoreError, ValueError):
        override = {}
    override = override if isinstance(override, dict) else {}
    # The instance's own override belongs to the character it was set for (files from before
    # this was recorded: to the instance's character).
    if override.get("character_id", state.get("character_id", character_id)) == character_id:
        text = override.get("text")
        if isinstance(text, str) and text.strip():
            return text, "instance"
    # an unreadable state has no owner to judge by: only shared files, then (nobody's chat)
    text = character_for_chat_optional(store, state={"owner": "", **state,
                                                     "instance_id": instance_id},
                                       character_id=character_id).get("pinned_prompt")
    if isinstance(text, str) and text.strip():
        return text, "character"
    return "", "none"


def pinned_members(store: FileStore, *, instance_id: str) -> tuple[str, list[dict[str, str]]]:
    """(convKey, each member's effective pinned prompt, its source and its convKey override)."""
    state = store.instance_state_read(instance_id)
    key = conv_key(participants_of(state))
    by_key = pinned_overrides_read(store, conv_key=key)
    members = []
    for character_id in member_ids(state):
        text, source = pinned_prompt_effective(store, instance_id=instance_id,
                                               character_id=character_id)
        members.append({"character_id": character_id, "text": text, "source": source,
                        "conv_key_override": by_key.get(character_id, "")})
    return key, members


def _pinned_overrides_path(store: FileStore, key: str) -> Path:
    # A convKey holds "|" and ":" and can be long: the file is named by its digest.
    return store.root / "pinned" / f"{hashlib.sha256(key.encode()).hexdigest()[:40]}.json"


def pinned_overrides_read(store: FileStore, *, conv_key: str) -> dict[str, str]:
    """character_id -> the override text for conversations of exactly these participants."""
    try:
        data = read_json(_pinned_overrides_path(store, conv_key), what="pinned override")
    except StoreError:
        return {}
    if not isinstance(data, dict) or data.get("conv_key") != conv_key:
        return {}
    by_character = data.get("by_character")
    return {k: v["text"] for k, v in (by_character or {}).items()
            if isinstance(v, dict) and isinstance(v.get("text"), str) and v["text"].strip()} \
        if isinstance(by_character, dict) else {}


PINNED_MAX_CHARS = 20_000  # as a character's own pinned prompt (library MAX_TEXT)


def _pinned_text_checked(text: str) -> None:
    if len(text.strip()) > PINNED_MAX_CHARS:
        raise MemoryActionError(
            f"text is longer than {PINNED_MAX_CHARS} characters, the most a pinned prompt may be",
            code="invalid", status=400, fields={"text": f"at most {PINNED_MAX_CHARS} characters"})


def pinned_override_set(store: FileStore, *, instance_id: str, character_id: str,
                        text: str) -> str:
    """The convKey override of one member of this conversation (empty text removes it);
    returns the convKey. A character that is not a member is refused (400 naming it)."""
    _pinned_text_checked(text)
    state = store.instance_state_read(instance_id)
    if character_id not in member_ids(state):
        # People read this message: the character's name, never its id (issue 33 item 4).
        name = character_for_chat_optional(store, state=state,
                                           character_id=character_id).get("name")
        raise MemoryActionError(
            gettext("%(name)s is not a member of this conversation.")
            % {"name": name or gettext("This character")},
            code="invalid", status=400, fields={"character_id": "not a member"})
    key = conv_key(participants_of(state))
    path = _pinned_overrides_path(store, key)
    try:
        data = read_json(path, what="pinned override")
    except MissingFile:
        data = {}
    by_character = data.get("by_character") if isinstance(data, dict) else None
    by_character = by_character if isinstance(by_character, dict) else {}
    if text.strip():
        by_character[character_id] = {"text": text.strip(), "updated_at": utc_now()}
    else:
        by_character.pop(character_id, None)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, {"conv_key": key, "by_character": by_character})
    return key


def pinned_prompt_set(store: FileStore, *, instance_id: str | None, character_id: str | None,
                      text: str) -> None:
    """Instance override when instance_id is given (empty text removes the override), else the
    character's own pinned prompt in its definition.json."""
    _pinned_text_checked(text)
    if instance_id:
        store.instance_state_read(instance_id)  # refuse a typo'd instance instead of creating it
        store.memory_json_write(instance_id, PINNED_FILE, {
            "text": text, "updated_at": utc_now(),
            "character_id": main_character(store, instance_id)})
        return
    if not character_id:
        raise MemoryActionError(gettext("A pinned prompt needs a chat or a character."))
    try:
        definition = store.character_read(character_id)
    except StoreError as exc:
        raise MemoryActionError(gettext(
            "This character cannot be read (it is missing or its file is damaged); "
            "nothing was saved.")) from exc
    store.character_write(character_id, {**definition, "pinned_prompt": text})
