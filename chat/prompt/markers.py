"""SillyTavern's prompt-manager markers as PersonaLab's own prompt sections, so a preset that
reorders its markers (world info, persona, description, personality, scenario, examples)
reorders ours the same way. Each marker's sections keep the places the template gives the
group as a whole: only which group fills which place changes, everything else stays put. A
preset that moves `chatHistory` above other markers puts the conversation there: the sections
of the markers after it follow the conversation (markers_after_history)."""

from __future__ import annotations

from collections.abc import Sequence

from chat.prompt.inputs import SectionReport

# Our section names for each SillyTavern marker (world info: the lore blocks by position).
MARKER_SECTIONS = {
    "charDescription": ("base_persona", "evolved_persona"),
    "charPersonality": ("personality",),
    "scenario": ("scenario",),
    "personaDescription": ("user_persona",),
    "dialogueExamples": ("examples", "mes_example", "example_messages"),
}
_LORE = {"before_char": "worldInfoBefore", "after_char": "worldInfoAfter"}


def marker_of(report: SectionReport) -> str | None:
    """The SillyTavern marker a head section stands for, or None."""
    if report.name.startswith("block:lore:"):
        return _LORE.get(str(report.note or ""))
    return next((marker for marker, names in MARKER_SECTIONS.items()
                 if report.name in names), None)


def markers_ordered(head: list[SectionReport], order: Sequence[str]) -> list[SectionReport]:
    """`head` with the marker sections in `order` (a preset's marker order), each in one of
    the places marker sections held; the others where they were."""
    rank = {marker: index for index, marker in enumerate(order)}
    slots = [index for index, report in enumerate(head) if marker_of(report) in rank]
    if len(slots) < 2:
        return head
    chosen = sorted((head[index] for index in slots), key=lambda r: rank[marker_of(r)])
    placed = list(head)
    for index, report in zip(slots, chosen):
        placed[index] = report
    return placed


def markers_after_history(head: list[SectionReport],
                          order: Sequence[str]) -> tuple[list[SectionReport], list[SectionReport]]:
    """(the sections that stay before the conversation, those whose marker comes after
    `chatHistory` in `order`, in their order): SillyTavern sends the latter after the chat."""
    if "chatHistory" not in order:
        return head, []
    after = set(order[list(order).index("chatHistory") + 1:])
    moved = [report for report in head if marker_of(report) in after]
    return [report for report in head if marker_of(report) not in after], moved


def marker_texts(reports: list[SectionReport]) -> list[str]:
    """The texts of `reports`, the world-info entries of one marker that stand together as one
    text: SillyTavern sends worldInfoBefore / After as one prompt each, its entries joined with
    a newline."""
    texts: list[str] = []
    previous = None
    for report in reports:
        marker = marker_of(report) if report.name.startswith("block:lore:") else None
        if marker is not None and marker == previous:
            texts[-1] += "\n" + report.text
        else:
            texts.append(report.text)
        previous = marker
    return texts
