"""A `LimitReached` refusal in the page reader's language (the API keeps the English sentence
of personalab/lib/errors.py word for word): the middleware and the pages that catch a refusal
themselves say it through here."""

from __future__ import annotations

from django.utils.translation import gettext

from personalab.lib.errors import AppError, LimitReached


def _sentences() -> dict[str, str]:
    return {
        "personas": gettext("You have %(limit)s personas, the most one account may have "
                            "(%(setting)s): delete one to make another."),
        "characters": gettext("You have %(limit)s characters, the most one account may have "
                              "(%(setting)s): delete one to make another."),
        "backgrounds": gettext("You have %(limit)s backgrounds, the most one account may have "
                               "(%(setting)s): delete one to make another."),
        "lorebooks": gettext("You have %(limit)s lorebooks, the most one account may have "
                             "(%(setting)s): delete one to make another."),
        "instances": gettext("You have %(limit)s chats, the most one account may have "
                             "(%(setting)s): no more can be started; the site's administrator "
                             "can raise it."),
        "sessions": gettext("This chat has %(limit)s sessions (archived ones count: they are "
                            "kept), the most one chat may have (%(setting)s): start a new chat "
                            "to go on."),
    }


def error_words(error: AppError) -> str:
    """The refusal's message, a limit's in the reader's language."""
    if isinstance(error, LimitReached):
        return _sentences()[error.kind] % {"limit": error.limit, "setting": error.setting}
    return error.message
