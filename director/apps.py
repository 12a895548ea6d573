from django.apps import AppConfig


class DirectorConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "director"
