"""A user's regex that cannot be used, said in its author's words and language: what is wrong
and where, quoting the text as they wrote it ("a “(” is never closed, after “/(”"), never the
engine's "missing ) at position 7" (personalab/lib/regex_faults.py finds the fault)."""

from __future__ import annotations

from django.utils.translation import gettext

from personalab.lib.regex_faults import RegexFault


def gettext_noop(message: str) -> str:
    """Marks a sentence for makemessages; Django's own needs settings at import, and the
    bench scripts import this module without them (the words are translated when shown)."""
    return message


# How much of the author's text before the fault is quoted.
QUOTE_CHARS = 12
# Each fault's sentence: its figures (refusals) or its place in the text (%(after)s: the
# text up to the character at fault, %(char)s: that character, %(escape)s: it and the next).
SENTENCES = {
    "too_long": gettext_noop("the regex is %(length)s characters long; at most %(limit)s"),
    "too_deep": gettext_noop("groups inside groups go more than %(limit)s deep"),
    "repeat_count": gettext_noop("the repeat count %(count)s is above %(limit)s"),
    "too_costly": gettext_noop("the repeats multiply to %(units)s steps (a count inside a "
                               "count multiplies); at most %(limit)s: use fewer or smaller "
                               "repeats"),
    "unclosed_group": gettext_noop("a “(” is never closed, after “%(after)s”"),
    "unclosed_class": gettext_noop("a “[” is never closed, after “%(after)s”"),
    "unopened_group": gettext_noop("a “)” closes no “(”, after “%(after)s”"),
    "nothing_to_repeat": gettext_noop("“%(char)s” has nothing before it to repeat, after "
                                      "“%(after)s”"),
    "bad_escape": gettext_noop("“%(escape)s” is not an escape a regex knows (a backslash "
                               "itself is written “\\\\”)"),
    "trailing_backslash": gettext_noop("a “\\” at the end escapes nothing (a backslash itself "
                                       "is written “\\\\”)"),
    "unknown_flag": gettext_noop("“%(after)s” is not a flag or group a regex knows"),
    "js_inline_flag": gettext_noop("“%(after)s”: JavaScript takes no flag inside the pattern, "
                                   "so SillyTavern skips this regex; write the flag after the "
                                   "last slash (/…/i)"),
    "js_group": gettext_noop("“%(after)s” is a group JavaScript does not know, so "
                             "SillyTavern skips this regex"),
    "other": gettext_noop("this is not a regex that can run: check its brackets and "
                          "backslashes, after “%(after)s”"),
}
NOWHERE = gettext_noop("this is not a regex that can run: check its brackets and backslashes")


def _quoted(written: str, at: int) -> str:
    start = max(at + 1 - QUOTE_CHARS, 0)
    return ("…" if start else "") + written[start:at + 1]


def regex_fault_words(fault: RegexFault, *, written: str, offset: int = 0) -> str:
    """One sentence for `fault`. `written`: the regex as the author wrote it (a lore key
    with its slashes, "/(a/i"); `offset`: where the pattern starts in it (1 after a "/")."""
    if fault.numbers:
        return gettext(SENTENCES[fault.kind]) % {
            name: f"{value:,}" if isinstance(value, int) else value
            for name, value in fault.numbers.items()}
    if fault.at is None:
        return gettext(NOWHERE)
    at = fault.at + offset
    return gettext(SENTENCES.get(fault.kind, SENTENCES["other"])) % {
        "after": _quoted(written, at), "char": written[at:at + 1],
        "escape": written[at:at + 2]}
