"""A delete refused while chats play the item (library/item_chats.py `in_use_refusal`) in the
reader's language. The refusal is written in fixed English, which the API keeps word for word
for a program; a reader of another language reads it through here: the item, each chat as its
player knows it (library/chat_use.py's titles) and what to do first. A name or title stays as
the player wrote it, and a part that is not one of the forms below (a chat named by its id)
stays as written."""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy, pgettext

from personalab.lib.worded_forms import Forms, form_named

USED_BY = " is used by these chats: "
CHATS_JOIN = "; "
# (the item's kind, the advice the refusal ends with) -> the whole sentence
SENTENCES = {
    ("Character", "delete those chats first (an archived chat still plays it)."):
        gettext_lazy("Character %(name)s is used by these chats: %(chats)s; delete those chats "
                     "first (an archived chat still plays it)."),
    ("Background", "switch those chats to another background first."):
        gettext_lazy("Background %(name)s is used by these chats: %(chats)s; switch those chats "
                     "to another background first."),
}
# One chat of the list, as chat/library_use.py titles it (a title is at most ~130 characters).
TITLE = r"[^\n]{1,200}"
CHAT_FORMS: Forms = [
    (re.compile(rf"the chat with (?P<who>{TITLE}) started (?P<day>\d{{4}}-\d{{2}}-\d{{2}})"),
     gettext_lazy("the chat with %(who)s started %(day)s")),
    (re.compile(rf"the chat with (?P<who>{TITLE})"), gettext_lazy("the chat with %(who)s")),
    (re.compile(rf"\"(?P<name>{TITLE})\" with (?P<who>{TITLE})"),
     gettext_lazy("\"%(name)s\" with %(who)s")),
    (re.compile(r"(?P<count>\d{1,9}) more"), gettext_lazy("%(count)s more")),
    (re.compile(r"(?P<count>\d{1,9}) of other accounts"),
     gettext_lazy("%(count)s of other accounts")),
]


def in_use_words(message: str) -> str | None:
    """`message`, an in-use refusal, in the active language; None for any other text."""
    for (kind, advice), words in SENTENCES.items():
        ending = f"{CHATS_JOIN}{advice}"
        if not (message.startswith(f"{kind} ") and message.endswith(ending)):
            continue
        name, used_by, chats = message[len(kind) + 1:-len(ending)].partition(USED_BY)
        if not used_by:
            return None
        said = [form_named(chat, CHAT_FORMS) or chat for chat in chats.split(CHATS_JOIN)]
        return str(words) % {
            "name": name, "chats": pgettext("between chats a refusal names", "; ").join(said)}
    return None
