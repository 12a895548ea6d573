"""Deleting an account in the admin (a newcomer's pass, 2026-12-02): its files name their owner
by username, so a new account given the deleted one's name read its private characters. An
account that still owns anything is kept, and the admin says to untick "Active" instead; nor
can it be renamed (it would lose its files, and the old name would find them)."""

from __future__ import annotations

import pytest

from library.character_services import character_save

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "", "root-password"))
    return client


def _said(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_an_account_that_owns_a_character_is_kept_and_the_admin_says_why(
        staff_client, store, alice, django_user_model):
    character_save(store, data={"name": "Secret", "base_persona": "alice's diary",
                                "visibility": "private"}, character_id=None, user=alice)
    response = staff_client.post(f"/admin/auth/user/{alice.pk}/delete/", {"post": "yes"},
                                 follow=True)
    said = _said(response)
    assert any("alice still owns 1 character" in text and "Active" in text for text in said)
    assert not any("deleted successfully" in text for text in said), said
    assert django_user_model.objects.filter(username="alice").exists()


def test_delete_selected_deletes_only_the_accounts_that_own_nothing(staff_client, store, alice,
                                                                    bob, django_user_model):
    character_save(store, data={"name": "Secret", "base_persona": "alice's diary",
                                "visibility": "private"}, character_id=None, user=alice)
    response = staff_client.post("/admin/auth/user/", {
        "action": "delete_selected", "_selected_action": [alice.pk, bob.pk], "post": "yes"},
        follow=True, HTTP_ACCEPT_LANGUAGE="zh-CN")
    said = _said(response)
    assert any("alice 仍拥有 1 个" in text for text in said), said
    assert sorted(django_user_model.objects.values_list("username", flat=True)) == ["alice",
                                                                                   "root"]


def test_an_account_that_owns_a_character_cannot_be_renamed(staff_client, store, alice, bob):
    character_save(store, data={"name": "Secret", "base_persona": "alice's diary",
                                "visibility": "private"}, character_id=None, user=alice)
    assert 'name="username"' not in staff_client.get(
        f"/admin/auth/user/{alice.pk}/change/").content.decode()
    assert 'name="username"' in staff_client.get(
        f"/admin/auth/user/{bob.pk}/change/").content.decode()


def test_the_staff_tick_says_what_staff_may_do_in_the_app(staff_client, bob):
    page = staff_client.get(f"/admin/auth/user/{bob.pk}/change/",
                            HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "所有账号的私有角色" in page
