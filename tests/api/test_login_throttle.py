"""Attack: guess a player's password by trying many. After PERSONALAB_LOGIN_FAILURE_LIMIT wrong
passwords for one username from one address, logging in as that user from there is paused with
a clear message, even with the right password; other players are not affected.
PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT wrong passwords from one address, whatever the usernames,
pause logging in from there before any password is hashed; a post refused during a pause
writes nothing. Weak passwords
("password123", "12345678") are refused by Django's standard validators."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.backends import ModelBackend
from django.core.management import call_command
from django.db.models import Sum

pytestmark = pytest.mark.django_db


def _login(client, username, password):
    return client.post("/login/", {"username": username, "password": password})


def test_guessing_a_password_is_paused_after_the_failure_limit(client, alice, bob, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = _login(client, "alice", "guess")
        assert response.status_code == 200
        assert "Wrong username or password" in response.content.decode()
    locked = _login(client, "alice", "guess")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert 'id="login-locked"' in page and "Too many failed logins" in page
    assert "15 minutes" in page

    with_right_password = _login(client, "alice", "alice-password")
    assert with_right_password.status_code == 429
    assert "_auth_user_id" not in client.session

    assert _login(client, "bob", "bob-password").status_code == 302  # another player logs in


def test_staff_can_lift_a_lockout(client, alice, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "alice", "guess")
    assert _login(client, "alice", "alice-password").status_code == 429
    call_command("axes_reset_username", "alice")
    assert _login(client, "alice", "alice-password").status_code == 302


def test_a_successful_login_clears_earlier_failures(client, alice, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _login(client, "alice", "guess")
    assert _login(client, "alice", "alice-password").status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, "alice", "guess").status_code == 200
    assert _login(client, "alice", "alice-password").status_code == 302


def _bob_checked(monkeypatch) -> list[str]:
    """The usernames whose password was checked (hashed) by Django's backend."""
    checked: list[str] = []
    real = ModelBackend.authenticate

    def counted(self, request, username=None, password=None, **kwargs):
        checked.append(username)
        return real(self, request, username=username, password=password, **kwargs)

    monkeypatch.setattr(ModelBackend, "authenticate", counted)
    return checked


def test_wrong_passwords_for_made_up_usernames_pause_their_address(client, bob, settings,
                                                                   monkeypatch):
    """Made-up usernames were never locked (axes counts username and address together), and
    each post hashed a password on the thread page views share."""
    settings.PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT = 4
    checked = _bob_checked(monkeypatch)
    for number in range(3):
        assert _login(client, f"nobody{number}", "guess").status_code == 200
    locked = _login(client, "nobody3", "guess")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "from this address (4 wrong passwords, whatever the username)" in page
    assert "axes_reset_ip" in page and "nobody3" not in page
    checked.clear()
    counted = AccessAttempt.objects.aggregate(total=Sum("failures_since_start"))["total"]
    assert _login(client, "nobody4", "guess").status_code == 429
    assert _login(client, "bob", "bob-password").status_code == 429  # the same address
    assert checked == []  # refused before any password is hashed
    assert AccessAttempt.objects.aggregate(total=Sum("failures_since_start"))["total"] == counted
    elsewhere = client.post("/login/", {"username": "bob", "password": "bob-password"},
                            REMOTE_ADDR="192.0.2.7")
    assert elsewhere.status_code == 302


def test_an_address_paused_is_told_in_chinese_and_staff_can_lift_it(client, bob, settings):
    settings.PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT = 2
    client.cookies["django_language"] = "zh-hans"
    for number in range(2):
        locked = _login(client, f"nobody{number}", "guess")
    assert locked.status_code == 429
    assert "不论用户名，共 2 次密码错误" in locked.content.decode()
    call_command("axes_reset_ip", "127.0.0.1")
    assert _login(client, "bob", "bob-password").status_code == 302


def test_the_address_limit_zero_leaves_only_the_usernames_own(client, bob, settings):
    settings.PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT = 0
    for number in range(settings.AXES_FAILURE_LIMIT + 1):
        assert _login(client, f"nobody{number}", "guess").status_code == 200
    assert _login(client, "bob", "bob-password").status_code == 302


@pytest.mark.parametrize("password, complaint", [
    ("short1!", "too short"), ("password123", "too common"), ("8172635491", "entirely numeric"),
    ("carol-the-player", "too similar"),
])
def test_weak_passwords_are_refused_when_an_account_is_made(client, django_user_model,
                                                            password, complaint):
    admin = django_user_model.objects.create_superuser("root", "", "a-long-admin-passphrase")
    client.force_login(admin)
    response = client.post("/admin/auth/user/add/", {
        "username": "carol-the-player", "password1": password, "password2": password,
        "usable_password": "true"})
    assert response.status_code == 200
    assert complaint in response.content.decode()
    assert not django_user_model.objects.filter(username="carol-the-player").exists()


def test_bootstrap_still_makes_the_first_admin(data_dir, django_user_model):
    call_command("bootstrap")
    admin = django_user_model.objects.get(username="admin")
    password = (data_dir / ".admin_password").read_text().strip()
    assert admin.check_password(password)
