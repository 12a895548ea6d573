"""A login post from an address whose logging in is paused by its wrong passwords (whatever the
usernames) is answered before Django runs (personalab/login_pause.py): each one cost a whole
request on the thread every page view shares (red team, 2026-12-02). Only an address axes has
just refused is answered there, only for a few seconds, and only its login posts."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import AnonymousUser
from django.core.management import call_command
from django.core.signals import request_started
from django.utils import timezone

from personalab import login_pause
from personalab.asgi import application
from personalab.login_pause import LoginPauseGuard, login_pause_forget
from personalab.login_throttle import lockout_response
from tests.asgi_exchange import asgi_exchange

pytestmark = pytest.mark.django_db


class Inner:
    """The app behind the guard: records what reached it."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope, receive, send) -> None:
        self.paths.append(f"{scope['method']} {scope['path']}")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"django"})


def _request(app, method: str, path: str, address: str = "127.0.0.1", language: bytes = b""):
    scope = {"type": "http", "method": method, "path": path, "client": (address, 50000),
             "headers": [(b"accept-language", language)] if language else []}
    return asgi_exchange(app, scope, [b"username=x&password=y"])


@pytest.fixture
def paused_here(client, settings):
    """127.0.0.1 paused by axes, through the login page, as a flood of made-up names does."""
    login_pause_forget()
    settings.PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT = 2
    for number in range(2):
        locked = client.post("/login/", {"username": f"nobody{number}", "password": "guess"})
    assert locked.status_code == 429
    yield
    login_pause_forget()


def test_login_posts_from_a_paused_address_are_refused_before_django(paused_here):
    inner = Inner()
    guard = LoginPauseGuard(inner)
    for path in ("/login/", "/admin/login/"):
        start, body = _request(guard, "POST", path)
        assert start["status"] == 429
        assert b"Too many failed logins from this address (2 wrong passwords" in body
        assert b"axes_reset_ip" in body
        headers = dict(start["headers"])
        assert b"default-src 'none'" in headers[b"content-security-policy"]
        assert headers[b"x-frame-options"] == b"DENY"
    assert inner.paths == []


def test_the_served_application_refuses_them_before_django_starts_a_request(paused_here):
    started: list[object] = []
    receiver = lambda **kwargs: started.append(kwargs)  # noqa: E731
    request_started.connect(receiver)
    try:
        scope = {"type": "http", "method": "POST", "path": "/login/", "raw_path": b"/login/",
                 "query_string": b"", "headers": [(b"host", b"testserver")], "scheme": "http",
                 "server": ("testserver", 80), "client": ("127.0.0.1", 5000),
                 "http_version": "1.1", "asgi": {"version": "3.0"}}
        start, _ = asgi_exchange(application, scope, [b"username=bob&password=bob-password"])
    finally:
        request_started.disconnect(receiver)
    assert start["status"] == 429 and started == []


def test_other_addresses_pages_and_requests_reach_django(paused_here):
    inner = Inner()
    guard = LoginPauseGuard(inner)
    assert _request(guard, "POST", "/login/", address="192.0.2.7")[0]["status"] == 200
    assert _request(guard, "GET", "/login/")[0]["status"] == 200
    assert _request(guard, "POST", "/library/lorebooks/upload")[0]["status"] == 200
    assert inner.paths == ["POST /login/", "GET /login/", "POST /library/lorebooks/upload"]


def test_the_refusal_reads_in_the_readers_language(paused_here):
    _, body = _request(LoginPauseGuard(Inner()), "POST", "/login/", language=b"zh-CN")
    assert "不论用户名，共 2 次密码错误" in body.decode()


def test_after_a_few_seconds_the_next_post_asks_axes_again(paused_here, monkeypatch):
    """So a pause that ended, or was lifted with axes_reset_ip, lets logging in through."""
    inner = Inner()
    later = login_pause.time.monotonic() + login_pause.REMEMBERED_SECONDS + 1
    monkeypatch.setattr(login_pause.time, "monotonic", lambda: later)
    assert _request(LoginPauseGuard(inner), "POST", "/login/")[0]["status"] == 200
    assert inner.paths == ["POST /login/"]


def test_a_pause_of_the_username_alone_is_left_to_axes(client, alice, settings):
    login_pause_forget()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/login/", {"username": "alice", "password": "guess"})
    assert client.post("/login/", {"username": "alice", "password": "guess"}).status_code == 429
    inner = Inner()
    assert _request(LoginPauseGuard(inner), "POST", "/login/")[0]["status"] == 200
    assert inner.paths == ["POST /login/"]


def test_the_memory_holds_a_bounded_number_of_addresses(monkeypatch):
    login_pause_forget()
    monkeypatch.setattr(login_pause, "REMEMBERED_MAX", 3)
    for number in range(5):
        login_pause.login_pause_remember(f"192.0.2.{number}")
    assert sorted(login_pause._paused_until) == ["192.0.2.0", "192.0.2.1", "192.0.2.2"]
    later = login_pause.time.monotonic() + login_pause.REMEMBERED_SECONDS + 1
    monkeypatch.setattr(login_pause.time, "monotonic", lambda: later)
    login_pause.login_pause_remember("192.0.2.9")  # the stale ones make room
    assert sorted(login_pause._paused_until) == ["192.0.2.9"]
    login_pause_forget()


def _locked(rf, *, axes_address: str, **meta):
    request = rf.post("/login/", REMOTE_ADDR="10.0.0.1", **meta)
    request.user = AnonymousUser()
    request.axes_ip_address, request.login_address_locked = axes_address, True
    return lockout_response(request)


def test_an_address_axes_read_from_a_header_is_not_remembered(rf, settings):
    # With django-ipware set to read X-Forwarded-For, axes' address is the header's while the
    # guard reads the connection's: behind a proxy, forging the proxy's own address in the
    # header paused everyone's login posts, 10 s after each of the forger's.
    login_pause_forget()
    _locked(rf, axes_address="10.0.0.1")
    assert list(login_pause._paused_until) == ["10.0.0.1"]
    login_pause_forget()
    refused = _locked(rf, axes_address="10.0.0.2", HTTP_X_FORWARDED_FOR="10.0.0.2")
    assert refused.status_code == settings.AXES_HTTP_RESPONSE_CODE
    assert login_pause._paused_until == {}


def _lifts_token(settings) -> bytes:
    lifts = Path(settings.PERSONALAB_DATA_DIR) / login_pause.LIFTS_FILE
    return lifts.read_bytes() if lifts.exists() else b""


def _admin_deletes_the_attempts(client, django_user_model) -> None:
    client.force_login(django_user_model.objects.create_superuser("root", "", "root-password"))
    deleted = client.post("/admin/axes/accessattempt/", {
        "action": "delete_selected", "post": "yes",
        "_selected_action": list(AccessAttempt.objects.values_list("pk", flat=True))})
    assert deleted.status_code == 302


@pytest.mark.parametrize("reset", ["axes_reset_ip", "axes_reset", "the admin's delete"])
def test_a_reset_lifts_the_guards_pause_at_once(paused_here, client, django_user_model, settings,
                                                django_capture_on_commit_callbacks, reset):
    """axes_reset_ip was honoured up to 10 s late by each worker that remembered the address."""
    before = _lifts_token(settings)
    with django_capture_on_commit_callbacks(execute=True):
        if reset == "the admin's delete":
            _admin_deletes_the_attempts(client, django_user_model)
        else:
            call_command(reset, *(["127.0.0.1"] if reset == "axes_reset_ip" else []))
    assert not AccessAttempt.objects.exists() and _lifts_token(settings) != before
    inner = Inner()
    assert _request(LoginPauseGuard(inner), "POST", "/login/")[0]["status"] == 200
    assert inner.paths == ["POST /login/"]


def test_a_lift_written_by_another_worker_reaches_this_ones_guard(paused_here, settings,
                                                                  monkeypatch):
    guard = LoginPauseGuard(Inner())
    assert _request(guard, "POST", "/login/")[0]["status"] == 429
    later = login_pause.time.monotonic() + login_pause.LIFTS_READ_SECONDS
    monkeypatch.setattr(login_pause.time, "monotonic", lambda: later)
    lifts = Path(settings.PERSONALAB_DATA_DIR) / login_pause.LIFTS_FILE
    lifts.parent.mkdir(parents=True, exist_ok=True)
    lifts.write_bytes(b"written by another worker's reset")
    assert _request(guard, "POST", "/login/")[0]["status"] == 200


def test_a_refusal_read_before_a_lift_is_not_remembered():
    login_pause_forget()
    login_pause.login_pause_remember("192.0.2.1", "the token before the reset")
    assert login_pause._paused_until == {}
    login_pause.login_pause_remember("192.0.2.1", login_pause.login_pause_lifts_read())
    assert list(login_pause._paused_until) == ["192.0.2.1"]
    login_pause_forget()


def test_cleaning_up_expired_attempts_lifts_nothing(paused_here, settings,
                                                    django_capture_on_commit_callbacks):
    # axes deletes expired attempts at every login: they never counted towards a pause
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(days=1))
    with django_capture_on_commit_callbacks() as lifts:
        AccessAttempt.objects.all().delete()
    assert lifts == []


def test_deleting_many_attempts_lifts_once(paused_here, django_capture_on_commit_callbacks):
    for number in range(3):
        AccessAttempt.objects.create(username=f"more{number}", ip_address="192.0.2.3",
                                     failures_since_start=1)
    with django_capture_on_commit_callbacks() as lifts:
        AccessAttempt.objects.all().delete()
    assert lifts == [login_pause.login_pause_lift]


def test_one_players_wrong_passwords_never_pause_colleagues_at_the_same_address(client, alice,
                                                                                bob, settings):
    """An office behind one address: axes locks alice's name there after its 5, and refusals
    during that lock are not counted, so one name adds at most 5 to the address's count."""
    login_pause_forget()
    settings.PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT = settings.AXES_FAILURE_LIMIT + 1
    for _ in range(3 * settings.AXES_FAILURE_LIMIT):
        client.post("/login/", {"username": "alice", "password": "guess"})
    assert login_pause._paused_until == {}
    colleague = client.post("/login/", {"username": "bob", "password": "bob-password"})
    assert colleague.status_code == 302


def test_a_flood_of_posts_shares_one_read_of_the_lifts_file(paused_here, monkeypatch):
    reads: list[str] = []
    real = login_pause.login_pause_lifts_read
    monkeypatch.setattr(login_pause, "login_pause_lifts_read",
                        lambda: reads.append("read") or real())
    now = login_pause.time.monotonic()
    monkeypatch.setattr(login_pause.time, "monotonic", lambda: now)  # a flood within 0.1 s
    guard = LoginPauseGuard(Inner())
    for _ in range(20):
        assert _request(guard, "POST", "/login/")[0]["status"] == 429
    assert reads == ["read"]
