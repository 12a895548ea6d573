"""The prompt inspector's notes in the reader's language: the turn's warnings (by category,
with their numbers), the blocks dropped for the prompt's budget, the lore entries left out
(cut by a budget, lost a group, rolled out, filtered, cooling down) and the lore problems. The
turn writes them in English or in its prompt template's language (chat/prompt/limits.py,
chat/play/context.py, chat/prompt/assemble.py, library/worldinfo*.py, memory/); the forms listed
here are translated, any other text is shown as written. Ids, keys and numbers stay as they are."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext, gettext_lazy

from chat.inspector.names import LoreNamer
from chat.inspector.reasons import QUOTED, Forms, lore_reason_named
from personalab.lib.worded_forms import form_named

SUMMARIZE = gettext_lazy("Summarize the session")
SUMMARIZE_OR_SETTINGS = gettext_lazy("Summarize the session or change the settings")

# A warning's category → (what happened, what to do); %(current)s and %(threshold)s are the
# warning's own numbers.
WARNING_WORDS: dict[str, tuple[Any, Any]] = {
    "middle_section_overflow": (
        gettext_lazy("The conversation history is long (%(current)s tokens, the warning is at "
                     "%(threshold)s)"), SUMMARIZE),
    "total_near_limit": (
        gettext_lazy("The prompt is close to its limit (%(current)s of %(threshold)s tokens)"),
        SUMMARIZE_OR_SETTINGS),
    "conversation_overflow": (
        gettext_lazy("The session file is long (%(current)s tokens, the warning is at "
                     "%(threshold)s)"), SUMMARIZE),
    "prompt_blocks_dropped": (
        gettext_lazy("The prompt was too long: %(current)s lorebook / author's note entries "
                     "were left out"), SUMMARIZE_OR_SETTINGS),
    "group_cards_left_out": (
        gettext_lazy("The joined character cards did not fit: %(current)s other members' cards "
                     "were left out of this reply's prompt"),
        gettext_lazy("Shorten the cards, raise the context size, or swap character cards in "
                     "the members card")),
    "section_too_long": (
        gettext_lazy("A part of the prompt was too long and was left out"),
        gettext_lazy("Shorten the text the detail names: one part of the prompt may be at most "
                     "%(threshold)s characters")),
    "template_error": (
        gettext_lazy("A prompt template has an error"),
        gettext_lazy("Check the template syntax; the text as written or the default template "
                     "was used")),
    "reply_truncated": (
        gettext_lazy("The reply reached the %(threshold)s character limit and was cut there"),
        gettext_lazy("Ask the character to continue, or raise PERSONALAB_MAX_REPLY_CHARS")),
    "context_window_learned": (
        gettext_lazy("The model server refused a %(threshold)s-token window; this turn was "
                     "asked again with %(current)s, older messages leaving the prompt"),
        gettext_lazy("Set the context size to %(current)s tokens in the chat's generation "
                     "settings (or the account's) so turns are not sent twice")),
    "outline_clamped": (
        gettext_lazy("The outline point was beyond the new background's outline: its last "
                     "point is used"), gettext_lazy("Check the chat's story progress")),
    "corrupt_session_lines": (
        gettext_lazy("%(current)s lines of the session file could not be read and were "
                     "skipped (the file was not changed)"), ""),
    "recap_failed": (
        gettext_lazy("A rolling recap could not be written (the model failed it)"),
        gettext_lazy("The chat goes on and nothing is lost: the next recap takes these turns "
                     "again, or rebuild the recaps on the memory page.")),
    "recall_unavailable": (
        gettext_lazy("Recall is not available: this turn goes without recalled events"),
        gettext_lazy("Check the Chroma store or PERSONALAB_CHROMA_URL; a store that cannot "
                     "be read is rebuilt by python manage.py reindex --memory")),
    "memory_index_unavailable": (
        gettext_lazy("The vector index is not available: this summary was not written to it"),
        gettext_lazy("The summary is in the memory ledger; run python manage.py reindex once "
                     "Chroma is back")),
}
# Where the warning's own words are data (the lines that could not be read), not advice.
SUGGESTION_IS_DETAIL = {"corrupt_session_lines"}
# Warnings written with their error inside the message (memory/runtime.py, memory/summaries/summarize.py).
ERROR_INSIDE = re.compile(r"(?:记忆检索不可用，本轮不使用历史回忆|写入向量索引失败，本次摘要未写入 Chroma)"
                          r"（(?P<error>.*)）", re.DOTALL)

DROPPED_BLOCK_FORMS: Forms = [
    (re.compile(r"prompt over max_total_tokens \((?P<total>\d+) > (?P<limit>\d+)\); "
                r"lowest priority dropped first"),
     gettext_lazy("the prompt was over its limit (%(total)s > %(limit)s tokens); the lowest "
                  "priority goes first")),
]

# Why a lore entry that would have fired was left out (before "; would have fired: …").
LORE_DROPPED_FORMS: Forms = [
    # Traces written before the budget was spent loop by loop say ">".
    (re.compile(r"over the world-info budget \((?P<used>\d+) \+ (?P<tokens>\d+) [>≥] "
                r"(?P<budget>\d+) tokens\)"),
     gettext_lazy("over the world-info budget (%(used)s + %(tokens)s ≥ %(budget)s tokens)")),
    (re.compile(r"the world-info budget of (?P<budget>\d+) tokens was already spent"),
     gettext_lazy("the world-info budget of %(budget)s tokens was already spent")),
    (re.compile(r"over its lorebook's token_budget of (?P<budget>\d+)"),
     gettext_lazy("over its lorebook's budget of %(budget)s tokens")),
    (re.compile(r"probability (?P<chance>[\d.]+)%: rolled (?P<roll>[\d.]+)"),
     gettext_lazy("probability %(chance)s%%: rolled %(roll)s")),
    (re.compile(rf"group {QUOTED} has a sticky entry"),
     gettext_lazy("group %(group)s has a sticky entry")),
    (re.compile(rf"group {QUOTED} already has an active entry"),
     gettext_lazy("group %(group)s already has an active entry")),
    (re.compile(rf"group {QUOTED} scoring: (?P<n>\d+) key\(s\) matched, the best matched "
                r"(?P<best>\d+)"),
     gettext_lazy("group %(group)s scoring: %(n)s key(s) matched, the best matched %(best)s")),
    (re.compile(rf"group {QUOTED} won by entry (?P<uid>\S+) \(override\)"),
     gettext_lazy("group %(group)s won by entry %(uid)s (its override)")),
    (re.compile(rf"group {QUOTED} won by entry (?P<uid>\S+) \(order\)"),
     gettext_lazy("group %(group)s won by entry %(uid)s (by order)")),
    (re.compile(rf"group {QUOTED} won by entry (?P<uid>\S+) \(weight (?P<weight>\d+) of "
                r"(?P<sum>\d+)\)"),
     gettext_lazy("group %(group)s won by entry %(uid)s (weight %(weight)s of %(sum)s)")),
    (re.compile(r"on cooldown"), gettext_lazy("on cooldown")),
    (re.compile(r"delayed until (?P<n>\d+) messages \(chat has (?P<length>\d+)\)"),
     gettext_lazy("waits until the chat has %(n)s messages (it has %(length)s)")),
    (re.compile(r"character filter: only for (?P<names>.*); the speaker is (?P<who>.*)"),
     gettext_lazy("character filter: only for %(names)s; the speaker is %(who)s")),
    (re.compile(r"character filter: not for (?P<names>.*); the speaker is (?P<who>.*)"),
     gettext_lazy("character filter: not for %(names)s; the speaker is %(who)s")),
    (re.compile(r"character filter: only for tags (?P<tags>.*); the speaker (?P<who>.*) has "
                r"(?P<own>.*)"),
     gettext_lazy("character filter: only for the tags %(tags)s; the speaker %(who)s has "
                  "%(own)s")),
    (re.compile(r"character filter: not for tags (?P<tags>.*); the speaker (?P<who>.*) has "
                r"(?P<own>.*)"),
     gettext_lazy("character filter: not for the tags %(tags)s; the speaker %(who)s has "
                  "%(own)s")),
]
WOULD_HAVE_FIRED = "; would have fired: "

LABEL = r"lorebook (?P<book>\S+) entry (?P<uid>\S+)"
LORE_PROBLEM_FORMS: Forms = [
    (re.compile(LABEL + r": regex (?P<pattern>'.*'|\".*\") took longer than (?P<ms>\d+) ms and "
                r"was stopped", re.DOTALL),
     gettext_lazy("lorebook %(book)s entry %(uid)s: the regex %(pattern)s took longer than "
                  "%(ms)s ms and was stopped")),
    (re.compile(LABEL + r": regex key (?P<key>'.*'|\".*\") is not used: (?P<why>.*)", re.DOTALL),
     gettext_lazy("lorebook %(book)s entry %(uid)s: the regex key %(key)s is not used: "
                  "%(why)s")),
    (re.compile(r"(?P<n>\d+) vectorized entries are not embedded yet \(being embedded in the "
                r"background\): this turn they fire by their keys only"),
     gettext_lazy("%(n)s vectorized entries are not embedded yet (being embedded in the "
                  "background): this turn they fire by their keys only")),
    (re.compile(r"(?P<n>\d+) vectorized entries of (?P<books>\d+) more lorebooks: only the "
                r"first (?P<max>\d+) lorebooks' are compared with the chat, these fire by "
                r"their keys only \(PERSONALAB_LORE_VECTOR_BOOKS_MAX\)"),
     gettext_lazy("%(n)s vectorized entries of %(books)s more lorebooks: only the first "
                  "%(max)s lorebooks' are compared with the chat, these fire by their keys "
                  "only (PERSONALAB_LORE_VECTOR_BOOKS_MAX)")),
    (re.compile(r"lorebook (?P<book>\S+): (?P<n>\d+) vectorized entries, only the first "
                r"(?P<max>\d+) are compared with the chat \(PERSONALAB_LORE_VECTOR_ENTRIES_MAX\)"),
     gettext_lazy("lorebook %(book)s: %(n)s vectorized entries, only the first %(max)s are "
                  "compared with the chat (PERSONALAB_LORE_VECTOR_ENTRIES_MAX)")),
]


def warning_named(warning: dict[str, Any]) -> dict[str, Any]:
    """A warning as the page shows it: `category` (its id), `message` and `suggestion` in the
    reader's language when the category is known (else as written) and `detail` as written."""
    category = str(warning.get("category") or "")
    detail = [str(warning.get("detail") or "")]
    words = WARNING_WORDS.get(category)
    if words is None:
        return {"category": category, "message": str(warning.get("message") or ""),
                "suggestion": str(warning.get("suggestion") or ""), "detail": detail[0]}
    values = {"current": _number(warning.get("current_value")),
              "threshold": _number(warning.get("threshold"))}
    if category in SUGGESTION_IS_DETAIL:
        detail.append(str(warning.get("suggestion") or ""))
    error_inside = ERROR_INSIDE.fullmatch(str(warning.get("message") or ""))
    if error_inside:
        detail.append(error_inside.group("error"))
    message, suggestion = words
    return {"category": category, "message": str(message) % values,
            "suggestion": str(suggestion) % values if suggestion else "",
            "detail": "; ".join(part for part in detail if part)}


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


WON_BY = re.compile(r"won by entry (?P<uid>\S+) \(")


def lore_dropped_reason_named(reason: str, winners: dict[str, str] | None = None) -> str:
    """Why an entry was left out, then what would have fired it, in the reader's language;
    `winners` names a group's winner by its uid (else "another entry", never the uid)."""
    why, _, fired = reason.partition(WOULD_HAVE_FIRED)
    won = WON_BY.search(why)
    names = ({"uid": {won["uid"]: (winners or {}).get(won["uid"]) or gettext("another entry")}}
             if won else None)
    why = form_named(why, LORE_DROPPED_FORMS, names) or why
    if not fired:
        return why
    return gettext("%(why)s; would have fired: %(fired)s") % {
        "why": why, "fired": lore_reason_named(fired)}


def _winners(lore_fired: list[dict[str, Any]]) -> dict[str, str]:
    """The fired entries that won a group, by uid, as the page names them."""
    return {str(e.get("uid")): f"“{e.get('entry')}”" for e in lore_fired
            if "won group" in str(e.get("reason") or "") and e.get("entry")}


def lore_problem_named(problem: str, namer: LoreNamer | None = None) -> str:
    """A lore problem in the reader's language, its book and entry by their names."""
    label = re.match(LABEL + ":", problem)
    names = None
    if label and namer is not None:
        names = {"book": {label["book"]: f"“{namer.book(label['book'])}”"},
                 "uid": {label["uid"]: f"“{namer.entry(label['book'], label['uid'])}”"}}
    return form_named(problem, LORE_PROBLEM_FORMS, names) or problem


def trace_notes_named(trace: dict[str, Any], lore_dropped: list[dict[str, Any]], *,
                      lore_fired: list[dict[str, Any]] = (), namer: LoreNamer | None = None,
                      ) -> dict[str, Any]:
    """The page's translated notes: `warnings`, `dropped_blocks` (each with its `reason`),
    `lore_dropped` (the entries as trace_lore_named names them, each with its `reason`, a
    group's winner named from `lore_fired`) and `lore_problems` (books and entries named by
    `namer`)."""
    winners = _winners([*lore_fired, *lore_dropped])  # a winner may be cut by a budget later
    return {
        "warnings": [warning_named(w) for w in trace.get("warnings") or []],
        "dropped_blocks": [{**b, "reason": form_named(str(b.get("reason") or ""),
                                                      DROPPED_BLOCK_FORMS) or b.get("reason")}
                           for b in trace.get("dropped_blocks") or []],
        "lore_dropped": [{**e, "reason": lore_dropped_reason_named(str(e.get("reason") or ""),
                                                                   winners)}
                         for e in lore_dropped],
        "lore_problems": [lore_problem_named(str(p), namer)
                          for p in (trace.get("lore") or {}).get("problems") or []],
    }
