"""The recalled section shows its passages in the order they were said (findings long-chat F4):
a correction ("Actually my sister is Mia, not Mina") comes after what it corrects, whichever
scored higher, and a cut over the budget keeps the best matches, not the oldest."""

from __future__ import annotations

from pathlib import Path

from chat.prompt.recall_section import recalled_entries
from chat.prompt.sections import section_build
from chat.prompt.templates import templates_load

TEMPLATES = Path(__file__).resolve().parents[2] / "chat" / "prompt_templates"


def _line(doc_id: str, text: str, date: str) -> dict:
    return {"id": doc_id, "collection": "turns", "text": text, "instance_id": "inst_001",
            "role": "user", "speaker": "Ann", "date": date, "recalled": True}


def _passage(doc_id: str, text: str, date: str) -> dict:
    return {"source": doc_id, "date": date, "lines": [_line(doc_id, text, date)]}


# Best first, as recall ranks them: the correction scored higher than the old statement.
REPORT = {"passages": [
    _passage("turn_sess_002_96_user", "Actually my sister is Mia, not Mina.", "2026-12-02"),
    _passage("turn_sess_001_12_user", "Weather is fine.", "2026-12-02"),
    _passage("turn_sess_001_1_user", "My sister Mina just moved to Lisbon.", "2026-12-02"),
]}


def _entries(report: dict = REPORT) -> list[dict]:
    return recalled_entries(report, user_name="Ann", character_name="Bo", locale="en")


def test_recalled_passages_are_in_the_order_they_were_said_with_their_rank():
    entries = _entries()
    assert [entry["text"] for entry in entries] == [
        "Ann: My sister Mina just moved to Lisbon.", "Ann: Weather is fine.",
        "Ann: Actually my sister is Mia, not Mina."]
    assert [entry["rank"] for entry in entries] == [2, 1, 0]


def test_a_later_day_comes_after_an_earlier_one_whatever_the_session():
    report = {"passages": [_passage("turn_sess_001_3_user", "Newer.", "2026-12-05"),
                           _passage("turn_sess_009_3_user", "Older.", "2026-12-01")]}
    assert [entry["text"] for entry in _entries(report)] == ["Ann: Older.", "Ann: Newer."]


def _section(budget: int) -> str:
    templates = templates_load("en", TEMPLATES / "en.json", [])
    recalled = [{**entry, "neighbour": None} for entry in _entries()]
    report = section_build("recalled", "middle", templates, {"recalled": recalled},
                           {"recalled": budget}, [])
    return report.text


def test_the_section_says_its_order_and_shows_the_correction_last():
    text = _section(1000)
    assert "===\n(oldest first: a later line can correct an earlier one)\n- " in text
    assert text.index("Mina just moved") < text.index("Actually my sister is Mia")


def test_a_cut_section_keeps_the_best_matches_in_the_order_they_were_said():
    text = _section(62)
    assert "Actually my sister is Mia" in text and "Weather is fine" in text
    assert "Mina just moved" not in text
    assert text.index("Weather is fine") < text.index("Actually my sister is Mia")


def test_a_thousandth_session_comes_after_the_nine_hundred_ninety_ninth():
    report = {"passages": [_passage("turn_sess_1000_1_user", "Later.", "2026-12-02"),
                           _passage("turn_sess_999_4_user", "Earlier.", "2026-12-02")]}
    assert [entry["text"] for entry in _entries(report)] == ["Ann: Earlier.", "Ann: Later."]
