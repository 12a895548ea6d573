"""django-axes' app under a name the admin can translate: its own config has no verbose_name,
so the admin's index headed its models "Axes" in every language."""

from __future__ import annotations

from axes.apps import AppConfig as AxesAppConfig
from django.utils.translation import gettext_lazy as _


class AxesConfig(AxesAppConfig):
    verbose_name = _("Login throttling")

    def ready(self) -> None:
        super().ready()
        # here, not at the top: axes' admin imports its models, which need the app registry
        from axes.admin import AccessAttemptAdmin

        # a method without a label: Django headed its column "Status" in every language
        AccessAttemptAdmin.status.short_description = _("Status")
