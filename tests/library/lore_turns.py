"""World info through real turns, as the lore tests drive them: a lorebook linked to a character,
a turn run through the real turn code (the stub server records what the model received), and
what the turn's trace says of each entry."""

from __future__ import annotations

from chat.play.turn import TurnResult, turn_run
from library.character_services import character_save
from library.lore.services import lorebook_save


async def lore_turn_run(store, instance_id: str, text: str) -> TurnResult:
    """One turn of `text`, its events dropped."""
    async def emit(event):
        pass

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit)


def lorebook_link(store, character_id: str, *entries: dict, **book) -> str:
    """A lorebook "World" of `entries` (and `book`'s fields), the character's only book."""
    lorebook_id = lorebook_save(store, data={"name": "World", **book, "entries": list(entries)})
    definition = store.character_read(character_id)
    character_save(store, data={**definition, "lorebook_ids": [lorebook_id]},
                   character_id=character_id)
    return lorebook_id


def lore_fired_dropped(store, instance_id: str,
                       result: TurnResult) -> tuple[dict[int, str], dict[int, str]]:
    """The turn's entries that fired and those dropped, each uid with the trace's reason."""
    lore = store.trace_read(instance_id, result.trace_id)["lore"]
    return ({e["uid"]: e["reason"] for e in lore["fired"]},
            {e["uid"]: e["reason"] for e in lore["dropped"]})


def lore_fired_problems(store, instance_id: str,
                        result: TurnResult) -> tuple[dict[int, str], list[str]]:
    """The turn's entries that fired (uid: the trace's reason) and the lore's problems."""
    lore = store.trace_read(instance_id, result.trace_id)["lore"]
    return {e["uid"]: e["reason"] for e in lore["fired"]}, lore["problems"]
