"""django-axes' app under a name the admin can translate: its own config has no verbose_name,
so the admin's index headed its models "Axes" in every language. Its rows' titles and its
cleanup message are English f-strings in axes; they are given in the reader's language here."""

from __future__ import annotations

from axes.apps import AppConfig as AxesAppConfig
from django.contrib import admin
from django.utils import formats, timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _


def _when(moment) -> str:
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT") if moment else ""


def _attempt_title(attempt) -> str:
    return gettext("Login attempt of %(username)s at %(time)s") % {
        "username": attempt.username, "time": _when(attempt.attempt_time)}


def _log_title(entry) -> str:
    return gettext("Login of %(username)s at %(time)s") % {
        "username": entry.username, "time": _when(entry.attempt_time)}


def _failure_title(failure) -> str:
    words = {"username": failure.username, "time": _when(failure.attempt_time),
             "address": failure.ip_address}
    if failure.locked_out:
        return gettext(
            "Failed login of %(username)s at %(time)s from %(address)s, locked out") % words
    return gettext("Failed login of %(username)s at %(time)s from %(address)s") % words


@admin.action(description=_("Clean up expired attempts"))
def _expired_attempts_cleanup(model_admin, request, queryset) -> None:
    # axes' own action read the attempt time its login handler sets, absent on an admin page's
    # request: the action answered 500. Imported here: axes' handlers import its models, which
    # need the app registry.
    from axes.handlers.proxy import AxesProxyHandler

    AxesProxyHandler.update_request(request)
    count = model_admin.handler.clean_expired_user_attempts(request=request)
    model_admin.message_user(request, ngettext(
        "Cleaned up %(count)d expired login attempt.",
        "Cleaned up %(count)d expired login attempts.", count) % {"count": count})


class AxesConfig(AxesAppConfig):
    verbose_name = _("Login throttling")

    def ready(self) -> None:
        super().ready()
        # here, not at the top: axes' admin imports its models, which need the app registry
        from axes.admin import AccessAttemptAdmin
        from axes.models import AccessAttempt, AccessFailureLog, AccessLog

        # a method without a label: Django headed its column "Status" in every language
        AccessAttemptAdmin.status.short_description = _("Status")
        AccessAttempt.__str__ = _attempt_title
        AccessLog.__str__ = _log_title
        AccessFailureLog.__str__ = _failure_title
        AccessAttemptAdmin.cleanup_expired_attempts = _expired_attempts_cleanup
