from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from library.chat_use import chat_use_register


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"
    verbose_name = _("Chat")

    def ready(self) -> None:
        # Local: chat.library_use reads chat.models, which Django loads only after this module.
        from chat.library_use import chats_playing, chats_titled

        chat_use_register(chats_playing, titles=chats_titled)
