from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from library.chat_use import chat_use_register


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"
    verbose_name = _("Chat")

    def ready(self) -> None:
        # Local: chat.library_use and chat.accounts read chat.models, which Django loads only
        # after this module.
        from chat import accounts, library_use

        chat_use_register(library_use.chats_playing, titles=library_use.chats_titled,
                          played=library_use.characters_played)
        accounts.account_guard_connect()
