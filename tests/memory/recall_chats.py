"""Chats the recall tests remember from: Jolene's puppy among small talk (seeded into the file
and the index), a line kept then edited, a sister's wedding told in a group, and pairs of lines
as the index takes them."""

from __future__ import annotations

from django.core.management import call_command

FACT_USER = "Jolene adopted a puppy named Susie last spring, right after the flood."
FACT_REPLY = "Susie the puppy sleeps on Jolene's boots every night."
META = "Do you remember when we talked about reminders and memories?"
FILLER = [("The market was loud this morning.", "I bought bread and apples there."),
          ("Rain is coming from the west.", "Then we should fix the roof soon."),
          ("My cousin sent a letter.", "What did the letter say about the harvest?")]


def recall_chat_seed(store, instance_id: str, *, turns: int = 24, fact_at: int = 4,
                     meta_at: int = 9, whole_chat: bool = False) -> None:
    """`turns` turns of FILLER in the chat's file and the memory index, with the fact
    (FACT_USER, FACT_REPLY) at turn `fact_at` and META at `meta_at`; recaps off."""
    # A recap request would take the last request's place in the stub's log.
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    # The prompt shows the newest 10 messages (the fact is older) unless `whole_chat`.
    config = store.config_read()
    config["preferences"]["conversation_load_all"] = whole_chat
    store.config_write(config)
    chat_turns_seed(store, instance_id, [
        (FACT_USER, FACT_REPLY) if turn == fact_at else
        (META, "We did, about the river.") if turn == meta_at else FILLER[turn % len(FILLER)]
        for turn in range(1, turns + 1)])


def chat_turns_seed(store, instance_id: str, pairs: list[tuple[str, str]]) -> None:
    """(player, reply) pairs written to the chat's file as turns 1, 2, …, then the memory
    index rebuilt from it."""
    with store.instance_lock(instance_id):
        for turn, (user, reply) in enumerate(pairs, start=1):
            for role, text in (("user", user), ("assistant", reply)):
                store.session_append(instance_id, "sess_001", {
                    "role": role, "content": text, "turn": turn,
                    "timestamp": f"2025-10-16T10:{turn:02d}:00Z"})
    call_command("reindex", "--memory")


KEPT = "I buried the silver key under the old oak by the mill."
EDITED = "I buried the copper compass under the old oak by the mill."

WEDDING_FACT = "My sister Lena is getting married in Lisbon next spring."
WEDDING_SMALL_TALK = [("The tea is cold again.", "Then make another pot."),
                      ("The roof leaks in the north room.", "I will fix it after supper."),
                      ("Birds are loud this morning.", "Spring comes early this year.")]


def turn_lines(*pairs: tuple[str, str], start: int = 1) -> list[dict]:
    """(player, reply) pairs as the index's turn lines, numbered from `start`."""
    lines = []
    for number, (user, assistant) in enumerate(pairs, start=start):
        lines.append({"role": "user", "content": user, "turn": number, "timestamp": "t"})
        lines.append({"role": "assistant", "content": assistant, "turn": number, "timestamp": "t"})
    return lines
