"""Which chats play a library item. The chats live a floor up (chat/), so chat hands this
floor its read when the apps start (chat/apps.py): library never imports chat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ChatRow:
    instance_id: str
    owner_id: int | None
    owner_username: str | None
    owner_is_staff: bool


class ChatUse(Protocol):
    def __call__(self, *, kind: str, item_id: str, as_member: bool) -> list[ChatRow]: ...


class ChatTitles(Protocol):
    def __call__(self, instance_ids: list[str]) -> dict[str, str]: ...


class CharactersPlayed(Protocol):
    def __call__(self, *, user_id: int, limit: int) -> list[str]: ...


_reader: ChatUse | None = None
_titler: ChatTitles | None = None
_played: CharactersPlayed | None = None


def chat_use_register(reader: ChatUse, titles: ChatTitles | None = None,
                      played: CharactersPlayed | None = None) -> None:
    global _reader, _titler, _played
    _reader = reader
    _titler = titles
    _played = played


def characters_played(*, user_id: int, limit: int) -> list[str]:
    """The characters of the account's most recently started chats (at most `limit` chats),
    the newest chat's first; none when chat has not registered its read."""
    return _played(user_id=user_id, limit=limit) if _played is not None else []


def chat_titles(instance_ids: list[str]) -> dict[str, str]:
    """How a player knows each chat (its name, its characters, when it started), for messages
    that list chats; an id when chat has not registered its read."""
    titles = _titler(instance_ids) if _titler is not None and instance_ids else {}
    return {instance_id: titles.get(instance_id) or instance_id for instance_id in instance_ids}


def chats_playing(*, kind: str, item_id: str, as_member: bool = True) -> list[ChatRow]:
    """The chats whose story's character / background is the item (`as_member`: or that have
    the character as a member of a group)."""
    if _reader is None:
        raise RuntimeError("chat has not registered its read of chats (chat.apps)")
    return _reader(kind=kind, item_id=item_id, as_member=as_member)
