"""Login throttling on top of django-axes: its lock of one username from one address, and a
second, larger limit on one address's wrong passwords whatever the usernames. axes counts by
username and address together, so posts with made-up usernames were never locked, and each
one hashed a password on the thread every page view shares (red team, 2026-12-02)."""

from __future__ import annotations

from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from personalab.login_pause import login_pause_lift, login_pause_lifts_read, login_pause_remember


def address_failures(request: HttpRequest) -> int:
    """Wrong passwords from the request's address within the cool-off, every username's."""
    recent = AccessAttempt.objects.filter(ip_address=request.axes_ip_address,
                                          attempt_time__gte=get_cool_off_threshold(request))
    return recent.aggregate(total=Sum("failures_since_start"))["total"] or 0


def address_locked(request: HttpRequest) -> bool:
    limit = settings.PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT
    locked = bool(limit) and address_failures(request) >= limit
    if locked:
        request.login_address_locked = True
    return locked


class LoginThrottleHandler(AxesDatabaseHandler):
    def is_locked(self, request: HttpRequest, credentials: dict | None = None) -> bool:
        # before the attempts are read: a lift from now on makes this refusal stale
        request.login_pause_lift_before = login_pause_lifts_read()
        return super().is_locked(request, credentials) or address_locked(request)

    def post_delete_access_attempt(self, instance: AccessAttempt, **kwargs: Any) -> None:
        """A deleted attempt that still counted may lift a pause (axes_reset_ip, axes_reset,
        the admin's delete, a success): every worker's guard forgets its addresses once the
        deletion is committed. Expired ones (axes' clean-up at each login) lift nothing."""
        cool_off = get_cool_off()
        if cool_off is None or instance.attempt_time >= timezone.now() - cool_off:
            _lift_after_commit(using=kwargs.get("using"))

    def user_login_failed(self, sender: Any, credentials: dict, request: HttpRequest | None = None,
                          **kwargs: Any) -> None:
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is not None and not request.axes_locked_out and address_locked(request):
            request.axes_locked_out = True  # this failure reached the limit: its answer says so


def _lift_after_commit(*, using: str | None) -> None:
    """One write per deletion, not per attempt (the admin deletes thousands at once); a
    rolled-back transaction drops its callbacks, so the next one registers again. A write that
    fails is logged: the pause is then lifted as before, up to 10 s late."""
    pending = transaction.get_connection(using).run_on_commit
    if not any(callback[1] is login_pause_lift for callback in pending):
        transaction.on_commit(login_pause_lift, using=using, robust=True)


def lockout_response(request: HttpRequest, original_response: HttpResponse | None = None,
                     credentials: dict | None = None) -> HttpResponse:
    """axes' lockout page, saying which limit was reached (the username's from this address,
    or the address's whatever the username) and how to lift it."""
    by_address = getattr(request, "login_address_locked", False)
    address = getattr(request, "axes_ip_address", None)
    if by_address and address == request.META.get("REMOTE_ADDR"):
        # only the connection's address, the one the guard reads: an address axes took from
        # a header (django-ipware installed and set to read one) may name the proxy, whose
        # connections are everyone's
        login_pause_remember(address, getattr(request, "login_pause_lift_before", None))
    context = {
        "by_address": by_address,
        "username": "" if by_address else get_client_username(request, credentials) or "",
        "failure_limit": (settings.PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT if by_address
                          else get_failure_limit(request, credentials)),
        "cooloff_timedelta": get_cool_off(request),
    }
    return render(request, settings.AXES_LOCKOUT_TEMPLATE, context,
                  status=settings.AXES_HTTP_RESPONSE_CODE)
