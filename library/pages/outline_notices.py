"""What an outline edit did to the chats playing the background, said under the outline on
its editor page: the chats that kept their position (their point was edited or deleted),
those busy in a turn (they follow as it ends) and those now past a point added or moved above
their step (it shows as done there). The reader's own chats by title, linked (staff:
all); other accounts' only counted."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, ngettext

from library.chat_use import chat_titles
from library.outline_chats import OutlineChats


def _sentences() -> dict[str, str]:
    return {
        "kept_position": gettext("These chats could not follow their story step (its point was "
                                 "edited or deleted): each stays at the same position. Move "
                                 "them on their outline if needed."),
        "busy": gettext("These chats were in a turn: each follows its point as that turn "
                        "ends."),
        "passed": gettext("In these chats the point you added or moved up comes before "
                          "their story step, so it shows as done though the story has not "
                          "played it: press “go here” on it in the chat's outline "
                          "if it should still happen."),
    }


def outline_notices(report: OutlineChats, user) -> list[dict[str, Any]]:
    notices = []
    for outcome, sentence in _sentences().items():
        rows = getattr(report, outcome)
        if not rows:
            continue
        own = sorted(row.instance_id for row in rows
                     if user.is_staff or row.owner_id == user.pk)
        others = len(rows) - len(own)
        titles = chat_titles(own)
        notices.append({
            "text": sentence, "chats": [(chat, titles[chat]) for chat in own],
            "others": ngettext("%(n)s chat of another account",
                               "%(n)s chats of other accounts", others) % {"n": others}
            if others else ""})
    return notices
