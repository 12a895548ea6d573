"""Min activations as SillyTavern 1.12.6's checkWorldInfo runs them: while fewer entries fired
than the minimum, the scan looks one message further back (`advanceScan`) until the depth it
scanned is past the max depth or past the chat's length (`getDepth() > chat.length`), so its
last step reads the whole chat a second time. Books are SillyTavern world-info files."""

from __future__ import annotations

from library.lore.lorebook import lorebook_match
from library.lore.st_files import lorebook_file_read


def st_entry(uid: int, keys: list[str], content: str, **settings) -> dict:
    """An entry as SillyTavern's world-info file writes it (its defaults)."""
    return {"uid": uid, "key": keys, "keysecondary": [], "comment": content,
            "content": content, "constant": False, "vectorized": False, "selective": True,
            "selectiveLogic": 0, "addMemo": True, "order": 100, "position": 0,
            "disable": False, "excludeRecursion": False, "preventRecursion": False,
            "delayUntilRecursion": False, "probability": 100, "useProbability": True,
            "depth": 4, "group": "", "groupOverride": False, "groupWeight": 100,
            "scanDepth": None, "caseSensitive": None, "matchWholeWords": None,
            "useGroupScoring": None, "automationId": "", "role": None, "sticky": 0,
            "cooldown": 0, "delay": 0, "displayIndex": uid, **settings}


def st_book(*entries: dict, **settings) -> dict:
    world = {"entries": {str(entry["uid"]): entry for entry in entries}}
    return {**lorebook_file_read(world, fallback_name="World"), "lorebook_id": "lb_world",
            **settings}


def fired(match) -> list[str]:
    return sorted(entry["content"] for entry in match.fired)


def test_the_last_step_reads_the_chat_once_more_where_a_groups_loser_is_weighed_again():
    # The override wins group "g" at depth 1 and fails its 0% roll: nothing fired. The chat
    # has one message, so SillyTavern scans depth 2 too (1 is not past the chat's length),
    # finds "THE LOSER" again with no winner in its group, and fires it. Here the scan
    # stopped at the chat's first message.
    book = st_book(st_entry(0, ["dragon"], "THE WINNER", group="g", groupOverride=True,
                            probability=0),
                   st_entry(1, ["dragon"], "THE LOSER", group="g"),
                   scan_depth=1, min_activations=3)
    match = lorebook_match([book], messages=["a dragon"], count_tokens=len)
    assert fired(match) == ["THE LOSER"]
    assert "min activations: scanning 1 message(s) deeper" in match.fired[0]["reason"]


def test_no_step_reads_past_the_chat_a_third_time():
    # Three messages, scan depth 1: depths 1, 2, 3 and 4 (the chat again), never 5. The loser
    # is weighed at each; a winner that fails twice leaves it for the next step.
    book = st_book(st_entry(0, ["dragon"], "A", group="g", groupOverride=True, probability=0),
                   st_entry(1, ["dragon"], "B", group="g", groupOverride=True, probability=0,
                            order=90),
                   st_entry(2, ["dragon"], "C", group="g", groupOverride=True, probability=0,
                            order=80),
                   st_entry(3, ["dragon"], "D", group="g", probability=0, order=70),
                   st_entry(4, ["dragon"], "E", group="g", order=60),
                   scan_depth=1, min_activations=9)
    match = lorebook_match([book], messages=["a dragon", "hm", "ok"], count_tokens=len)
    # Depth 1 and 2 find nothing; depth 3 finds the dragon: A wins and fails, depth 4 (one
    # past the chat) B wins and fails; there is no depth 5 for C, D or E.
    assert fired(match) == []
    reasons = {entry["content"]: entry["reason"].split(";")[0].split(":")[0]
               for entry in match.dropped}
    assert reasons == {"A": "probability 0%", "B": "probability 0%",
                       "C": "group 'g' won by entry 0 (override)",
                       "D": "group 'g' won by entry 0 (override)",
                       "E": "group 'g' won by entry 0 (override)"}


def test_min_activations_without_a_max_depth_read_back_to_a_long_chats_start():
    # SillyTavern advances one message per step until the chat's start, however long the
    # chat; the 50-step bound of the scan stopped it 50 messages back here.
    book = st_book(st_entry(0, ["lighthouse"], "LIGHT"), scan_depth=1, min_activations=1)
    messages = ["the lighthouse"] + ["ok"] * 79
    match = lorebook_match([book], messages=messages, count_tokens=len)
    assert fired(match) == ["LIGHT"]
    assert "message -80" in match.fired[0]["reason"]
