"""The prompt inspector's explanations in the reader's language: where each card field went, why
the director read no marker from the reply, why recall failed, why a lore entry fired. The
turn writes them in English (chat/prompt/card_fields.py, director/logic.py,
personalab/lib/markers.py, library/lore/activation.py); the forms listed here are translated, any
other text is shown as written."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext, gettext_lazy

from chat.inspector.names import SECTION_NAMES, note_named
from personalab.lib.ordinals import ordinal_ending
from personalab.lib.worded_forms import Forms, form_named

# Where a card field went (card_fields_placement), beyond the section notes trace_names reads.
CARD_FIELD_FORMS: Forms = [
    (re.compile(r"section (?P<section>[\w:]+)"), gettext_lazy("in the section “%(section)s”")),
    (re.compile(r"replaces the main prompt \(section main_prompt\)"),
     gettext_lazy("replaces the main prompt")),
    (re.compile(r"after the history \(section post_history\)"),
     gettext_lazy("after the history")),
    (re.compile(r"not sent \((?P<field>\w+) empty or not in the template\)"),
     gettext_lazy("not sent (%(field)s empty or not in the template)")),
    (re.compile(r"not sent \((?P<n>\d+) blocks, none fit or none given\)"),
     gettext_lazy("not sent (%(n)s blocks: none fit, or none given)")),
    (re.compile(r"not sent"), gettext_lazy("not sent")),
    (re.compile(r"shown to the player, never sent"), gettext_lazy("shown to the player, never sent")),
    (re.compile(r"(?P<n>\d+) swipes of the first message"),
     gettext_lazy("%(n)s swipes of the first message")),
]

# The director's reading of the reply: why no marker counted, why a candidate was rejected.
DIRECTOR_FORMS: Forms = [
    (re.compile(r"no valid marker"), gettext_lazy("no valid marker")),
    (re.compile(r"no outline"), gettext_lazy("no outline")),
    (re.compile(r"held"), gettext_lazy("the beat is held")),
    (re.compile(r"error reply"), gettext_lazy("the reply was an error")),
    (re.compile(r"empty reply"), gettext_lazy("the reply was empty")),
    (re.compile(r"interrupted reply"), gettext_lazy("the reply was interrupted")),
    (re.compile(r"ignored: an earlier valid marker wins"),
     gettext_lazy("ignored: an earlier valid marker wins")),
    (re.compile(r"ignored: error reply"), gettext_lazy("ignored: the reply was an error")),
    (re.compile(r"ignored: empty reply"), gettext_lazy("ignored: the reply was empty")),
    (re.compile(r"ignored: interrupted reply"),
     gettext_lazy("ignored: the reply was interrupted")),
    (re.compile(r"spaces inside the marker"), gettext_lazy("spaces inside the marker")),
    (re.compile(r"malformed marker"), gettext_lazy("malformed marker")),
    (re.compile(r"wrong case: the marker must be written PROGRESS in capitals"),
     gettext_lazy("wrong case: the marker must be written PROGRESS in capitals")),
    (re.compile(r"full-width brackets or colon: only the ASCII form \[PROGRESS:X:status\] counts"),
     gettext_lazy("full-width brackets or colon: only the ASCII form [PROGRESS:X:status] counts")),
    (re.compile(r"expected three parts: \[PROGRESS:X:status\]"),
     gettext_lazy("expected three parts: [PROGRESS:X:status]")),
    (re.compile(r"index (?P<index>\d+) is outside the outline \(valid: (?P<span>\d+\.\.\d+)\)"),
     gettext_lazy("point %(index)s is outside the outline (valid: %(span)s)")),
    (re.compile(r"recall is not available: the reminder names the point only"),
     gettext_lazy("recall is not available: the reminder names the point only")),
    (re.compile(r"recall failed \((?P<error>[^\n]*)\)"),
     gettext_lazy("recall failed (%(error)s)")),
    (re.compile(r"wrong case in status (?P<status>'[^']*')"),
     gettext_lazy("wrong case in the status %(status)s")),
    (re.compile(r"unknown status (?P<status>'[^']*') \(use (?P<statuses>[\w /]+)\)"),
     gettext_lazy("unknown status %(status)s (use %(statuses)s)")),
    (re.compile(r"index (?P<index>\d+) is outside the outline \(valid: none: the outline is empty\)"),
     gettext_lazy("point %(index)s is outside the outline (the outline is empty)")),
    (re.compile(r"index (?P<index>'[^']*') is not a number"),
     gettext_lazy("point %(index)s is not a number")),
]

# Why a lore entry fired: its first part, then the notes added in brackets.
LORE_HEADS: Forms = [
    (re.compile(r"constant"), gettext_lazy("always on")),
    (re.compile(r"sticky \(fired earlier, still active\)"),
     gettext_lazy("sticky (fired earlier, still active)")),
    (re.compile(r"decorator @@activate"), gettext_lazy("decorator @@activate")),
    (re.compile(r"key (?P<key>'[^']*'|\"[^\"]*\") in (?P<where>the [a-z]+(?: [a-z]+)*)"),
     gettext_lazy("key %(key)s in %(where)s")),
    (re.compile(r"vectorized: the recent chat is (?P<score>[\d.]+) similar "
                r"\(threshold (?P<threshold>[\d.]+)\)"),
     gettext_lazy("vectorized: the recent chat is %(score)s similar (threshold %(threshold)s)")),
]
QUOTED = r"(?P<group>'[^']*'|\"[^\"]*\")"
LORE_NOTES = [
    (re.compile(r" \(probability (?P<chance>[\d.]+)%: rolled (?P<roll>[\d.]+)\)"),
     gettext_lazy(" (probability %(chance)s%%: rolled %(roll)s)")),
    (re.compile(r" \(ignores the budget\)"), gettext_lazy(" (ignores the budget)")),
    (re.compile(r" \(min activations: scanning (?P<n>\d+) message\(s\) deeper\)"),
     gettext_lazy(" (min activations: scanning %(n)s message(s) deeper)")),
    (re.compile(r" \(delayed until recursion level (?P<n>\d+)\)"),
     gettext_lazy(" (delayed until recursion level %(n)s)")),
    (re.compile(r" \(secondary (?P<logic>and_any|and_all): (?P<keys>.*?) present\)"),
     gettext_lazy(" (secondary keys, %(logic)s: %(keys)s present)")),
    (re.compile(r" \(secondary (?P<logic>not_any|not_all): (?P<keys>.*?) absent\)"),
     gettext_lazy(" (secondary keys, %(logic)s: %(keys)s absent)")),
    (re.compile(rf" \(group {QUOTED} scoring: (?P<n>\d+) key\(s\)\)"),
     gettext_lazy(" (group %(group)s scoring: %(n)s key(s))")),
    (re.compile(rf" \(won group {QUOTED} of 1\)"), gettext_lazy(" (alone in group %(group)s)")),
    (re.compile(rf" \(won group {QUOTED} of (?P<n>\d+) by override\)"),
     gettext_lazy(" (won group %(group)s of %(n)s by its override)")),
    (re.compile(rf" \(won group {QUOTED} of (?P<n>\d+) by order\)"),
     gettext_lazy(" (won group %(group)s of %(n)s by order)")),
    (re.compile(rf" \(won group {QUOTED} of (?P<n>\d+) by weight (?P<weight>\d+) of "
                r"(?P<sum>\d+)\)"),
     gettext_lazy(" (won group %(group)s of %(n)s by weight %(weight)s of %(sum)s)")),
    # library/lore/character_filter.py: a tag filter its unnamed SillyTavern ids left unsure
    (re.compile(r" \(character filter only for tags (?P<tags>.*?): unsure, not applied: its "
                r"SillyTavern tag ids (?P<ids>.*?) have no name here and may be among the "
                r"speaker's tags; name them on the book's page from SillyTavern's "
                r"settings\.json\)"),
     gettext_lazy(" (character filter only for the tags %(tags)s: unsure, so not applied: its "
                  "SillyTavern tag ids %(ids)s have no name here and may be among the "
                  "speaker's tags; name them on the book's page from SillyTavern's "
                  "settings.json)")),
    (re.compile(r" \(character filter not for tags (?P<tags>.*?): unsure, not applied: its "
                r"SillyTavern tag ids (?P<ids>.*?) have no name here and may be among the "
                r"speaker's tags; name them on the book's page from SillyTavern's "
                r"settings\.json\)"),
     gettext_lazy(" (character filter not for the tags %(tags)s: unsure, so not applied: its "
                  "SillyTavern tag ids %(ids)s have no name here and may be among the "
                  "speaker's tags; name them on the book's page from SillyTavern's "
                  "settings.json)")),
]
SOURCE_NAMES = {
    "the persona description": gettext_lazy("the persona description"),
    "the character description": gettext_lazy("the character description"),
    "the character personality": gettext_lazy("the character personality"),
    "the character depth prompt": gettext_lazy("the character's note"),
    "the scenario": gettext_lazy("the scenario"),
    "the creator notes": gettext_lazy("the creator notes"),
}


def _form_named(text: str, forms: Forms) -> str | None:
    return form_named(text, forms, {"section": SECTION_NAMES, "where": SOURCE_NAMES})


def card_field_placement_named(where: str) -> str:
    """Where a card field went, in the reader's language."""
    return _form_named(where, CARD_FIELD_FORMS) or note_named(where)


def director_reason_named(reason: str) -> str:
    """A director's reason (a marker missed or rejected, recall unavailable), parts joined by
    "; " as markers.py writes them."""
    return "; ".join(_form_named(part, DIRECTOR_FORMS) or part for part in reason.split("; "))


# Where a key was found, said as a reader counts messages (the engine writes "message -2" for
# the one before the newest) and an entry by its title, never by its place or id.
KEY_IN_MESSAGE = re.compile(r"key (?P<key>'[^']*'|\"[^\"]*\") in message -(?P<n>\d+)")
NEWEST_NTH = {"st": gettext_lazy("key %(key)s in the %(n)sst newest message"),
              "nd": gettext_lazy("key %(key)s in the %(n)snd newest message"),
              "rd": gettext_lazy("key %(key)s in the %(n)srd newest message"),
              "th": gettext_lazy("key %(key)s in the %(n)sth newest message")}
KEY_IN_ENTRY = re.compile(r"key (?P<key>'[^']*'|\"[^\"]*\") in entry (?P<entry>lore:\S+)")


def _key_in_message(found: re.Match[str], entries: dict[str, str]) -> str:
    back = int(found["n"])
    if back == 1:
        return gettext("key %(key)s in the newest message") % {"key": found["key"]}
    return str(NEWEST_NTH[ordinal_ending(back)]) % {"key": found["key"], "n": back}


def _key_in_entry(found: re.Match[str], entries: dict[str, str]) -> str:
    title = entries.get(found["entry"])
    if title is None:
        return gettext("key %(key)s in another entry (recursion)") % {"key": found["key"]}
    return gettext("key %(key)s in the entry “%(entry)s” (recursion)") % {
        "key": found["key"], "entry": title}


WORDED_HEADS = [(KEY_IN_MESSAGE, _key_in_message), (KEY_IN_ENTRY, _key_in_entry)]


def _head_named(reason: str, entries: dict[str, str]) -> tuple[str, str] | None:
    """(the reason's first part in the reader's language, the rest), when it is a known one."""
    for form, worded in WORDED_HEADS:
        found = form.match(reason)
        if found:
            return worded(found, entries), reason[found.end():]
    for form, words in LORE_HEADS:
        found = form.match(reason)
        if found:
            return _form_named(found.group(0), [(form, words)]) or found.group(0), \
                reason[found.end():]
    return None


def lore_reason_named(reason: str, entries: dict[str, str] | None = None) -> str:
    """Why an entry fired: its known first part and bracketed notes translated, the rest kept;
    `entries` names the entries a recursion key was found in (`lore:<book>:<uid>` → title)."""
    named = _head_named(reason, entries or {})
    if named is None:
        return reason
    head, rest = named
    for note, note_words in LORE_NOTES:
        rest = note.sub(lambda m, w=note_words: str(w) % m.groupdict(), rest)
    return head + rest


def trace_reasons_named(trace: dict[str, Any], lore_fired: list[dict[str, Any]]) -> dict[str, Any]:
    """The page's translated lines: `card_fields` as (field, where) rows, the director's
    `miss_reason`, `rejected` and `search_error`, and each fired entry's `reason`."""
    titles = {f"lore:{e.get('lorebook_id')}:{e.get('uid')}": str(e.get("entry") or "")
              for e in lore_fired}
    result = trace.get("director_result") or {}
    reminder = (trace.get("director_context") or {}).get("reminder") or {}
    return {
        "card_fields": [(name, card_field_placement_named(str(where)))
                        for name, where in (trace.get("card_fields") or {}).items()],
        "miss_reason": director_reason_named(str(result.get("miss_reason") or "no outline")),
        "rejected": [{**x, "reason": director_reason_named(str(x.get("reason") or ""))}
                     for x in result.get("rejected") or []],
        "search_error": director_reason_named(str(reminder.get("search_error") or "")),
        "lore_fired": [{**e, "reason": lore_reason_named(str(e.get("reason") or ""), titles)}
                       for e in lore_fired],
    }
