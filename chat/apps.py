from django.apps import AppConfig


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"

    def ready(self) -> None:
        from chat.library_use import chats_playing, chats_titled  # models load once apps are ready
        from library.chat_use import chat_use_register

        chat_use_register(chats_playing, titles=chats_titled)
