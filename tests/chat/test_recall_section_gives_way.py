"""The recalled section against the conversation of a small window
(chat/prompt/recall_section.py): giving way in a full window (recall_shrunk), the best line
found stays when the player asks to remember (a 2,048-token group chat sent no recalled line
for "Did I mention it the other day? …", bench/play_long.py LoCoMo conv-41); and a line taken
to be shown that the window left out can be recalled (recall_unshown)."""

from __future__ import annotations

from chat.prompt.inputs import PromptResult, SectionReport
from chat.prompt.recall_section import _section, recall_shrunk, recall_unshown
from memory.recall.passages import Near
from memory.recall.rag import RecallResult
from memory.recall.turn import TurnRecall, normalized
from memory.vectors.index import hit_make

ASKED = ("Hey Maria, since we last spoke I went to that community meeting. It was really "
         "interesting to hear what everyone had to say about the new park.")
BEFORE = "How was your week? " + "Busy with work and the kids' school play, as always. " * 4


def _hit(turn: int, role: str, text: str):
    return hit_make("turns", f"turn_sess_001_{turn}_{role}", text,
                    {"instance_id": "inst_001", "session_id": "sess_001", "turn": turn,
                     "role": role, "timestamp": "2025-10-16T10:00:00Z"}, 1.0)


def _found(*, triggered: bool) -> TurnRecall:
    best, before = _hit(40, "user", ASKED), _hit(39, "assistant", BEFORE)
    others = [_hit(turn, "user", f"Line {turn} about the park and the meeting, said at length "
                                 "to fill the memory share of the window with more words.")
              for turn in range(50, 60)]
    hits = [best, *others]
    return TurnRecall(result=RecallResult(hits=hits, mode="shallow"),
                      near={best.key: Near(before=before), **{h.key: Near() for h in others}},
                      triggered=triggered)


def _full(section) -> PromptResult:
    """A window the cards fill (three members' at 2,048 tokens) with the newest messages only."""
    recalled = sum(len(hit["text"]) // 4 + 12 for hit in section.report["hits"])
    sections = [SectionReport("recalled", "middle", recalled, 0),
                SectionReport("conversation", "middle", 120, 0)]
    return PromptResult(messages=[], sections=sections, total_tokens=1800 + recalled + 120,
                        middle_tokens=0, warnings=[], refused=None, dropped_blocks=[],
                        window={"prompt_limit": 1920, "full": True})


def _given_way(found: TurnRecall) -> list[str]:
    section = _section(found, set(), 512)
    while (smaller := recall_shrunk(section, _full(section))) is not None:
        section = smaller
    return [hit["text"] for hit in section.report["hits"]]


def test_a_player_asking_to_remember_keeps_the_best_line_found():
    assert _given_way(_found(triggered=True)) == [ASKED]


def test_without_asking_recall_still_gives_way_whole():
    assert _given_way(_found(triggered=False)) == []


def test_the_best_line_comes_alone_when_it_fits_only_without_the_line_before():
    section = _section(_found(triggered=False), set(), 45)
    assert [line["text"] for passage in section.report["passages"]
            for line in passage["lines"]] == [ASKED]


def test_a_line_taken_to_be_shown_that_the_window_left_out_is_recalled():
    """The newest lines are taken to be in the prompt; the ones a small window left out of
    the conversation can be recalled once the prompt is built."""
    found = _found(triggered=True)
    asked = found.result.hits[0]
    section = _section(found, {normalized(ASKED)}, 512)
    assert ASKED not in [hit["text"] for hit in section.report["hits"]]
    sent = [{"role": "user", "content": "What now?"}]

    again = recall_unshown(section, sent)

    assert again is not None and again.report["hits"][0]["text"] == asked.text
    assert recall_unshown(again, sent) is None  # nothing changes any more


def test_a_line_the_player_quotes_back_is_not_taken_as_shown_by_the_quote():
    """The line was said again a few turns before (taken to be shown) and the small window
    left it out; the player's own line quoting it is not the prompt showing it (bench/
    play_long.py, MemDaily u41 at 2,048: "那次我说过：我同事挺喜欢写作的。，你还记得吗？")."""
    message = f"Do you remember when I said: {ASKED}"
    section = _section(_found(triggered=True), {normalized(ASKED)}, 512)
    assert ASKED not in [hit["text"] for hit in section.report["hits"]]

    again = recall_unshown(section, [{"role": "user", "content": message}])

    assert again is not None and again.report["hits"][0]["text"] == ASKED


def _in_a_group(line):
    """How a group member's prompt shows a line: the player's (and other members') named."""
    return (f"Alice: {line['content']}" if line["role"] == "user" else line["content"])


def test_in_a_group_a_line_is_shown_as_the_prompt_names_it_never_inside_another():
    section = _section(_found(triggered=True), {normalized(ASKED)}, 512)
    named = [{"role": "user", "content": f"Alice: {ASKED}"}]
    quoted = [{"role": "user", "content": f"Mira: Alice told me: {ASKED}"}]

    assert recall_unshown(section, named, shown_as=_in_a_group) is None  # shown as taken
    again = recall_unshown(section, quoted, shown_as=_in_a_group)
    assert again is not None and again.report["hits"][0]["text"] == ASKED
