"""Attack: guess a player's password by trying many. After PERSONALAB_LOGIN_FAILURE_LIMIT wrong
passwords for one username from one address, logging in as that user from there is paused with
a clear message, even with the right password; other players are not affected. Weak passwords
("password123", "12345678") are refused by Django's standard validators."""

from __future__ import annotations

import pytest
from django.core.management import call_command

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
