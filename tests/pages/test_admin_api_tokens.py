"""The admin's API tokens (a newcomer's pass, 2026-12-02): "Add" asked for a token hash, so a
token typed there never worked; the list said "ApiToken object (1)", and a row could be moved to
another account. Now "Add" issues one for the chosen account and shows it once."""

from __future__ import annotations

import re

import pytest

from chat.models import ApiToken

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "", "root-password"))
    return client


def test_adding_a_token_issues_one_for_the_account_and_shows_it_once(staff_client, alice):
    form = staff_client.get("/admin/chat/apitoken/add/").content.decode()
    assert 'name="user"' in form and 'name="token_hash"' not in form
    issued = staff_client.post("/admin/chat/apitoken/add/", {"user": alice.pk})
    assert issued.status_code == 200
    token = re.search(r'id="api-token"[^>]*value="(pl_[^"]+)"', issued.content.decode())[1]
    assert ApiToken.user_for(token) == alice
    assert token not in staff_client.get("/admin/chat/apitoken/").content.decode()


def test_the_list_names_each_tokens_account_and_a_token_cannot_be_moved(staff_client, alice,
                                                                        bob):
    ApiToken.issue(alice)
    row = ApiToken.objects.get()
    listed = staff_client.get("/admin/chat/apitoken/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert ">alice<" in listed.content.decode() and "令牌哈希" in listed.content.decode()
    staff_client.post(f"/admin/chat/apitoken/{row.pk}/change/", {"user": bob.pk})
    assert ApiToken.objects.get().user == alice
    page = staff_client.get(f"/admin/chat/apitoken/{row.pk}/change/").content.decode()
    assert 'name="user"' not in page and row.token_hash not in page
    assert f"/admin/chat/apitoken/{row.pk}/delete/" in page  # revoking stays
    staff_client.post(f"/admin/chat/apitoken/{row.pk}/delete/", {"post": "yes"})
    assert not ApiToken.objects.exists()


def test_the_issued_page_reads_in_chinese(staff_client, alice):
    page = staff_client.post("/admin/chat/apitoken/add/", {"user": alice.pk},
                             HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "只显示这一次" in page and "shown this once" not in page
