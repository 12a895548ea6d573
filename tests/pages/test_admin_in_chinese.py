"""Django's admin in 中文 (newcomer F11): the index named the app's models in English
("Instances", "Traces") and django-axes' ("Access attempts"), which ships no 中文; then its app
heading "Axes", its attempts' "Status" column and Django 5.2's own index headers."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt

pytestmark = pytest.mark.django_db


def test_the_admin_index_names_every_model_in_chinese(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "", "root-password"))
    page = client.get("/admin/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    for name in ("对话实例", "会话", "提示词追踪", "API 令牌", "角色", "背景", "世界书",
                 "资料库", "登录尝试", "登录失败", "登录记录", "登录限制", "模型名称"):
        assert f">{name}<" in page, name
    for english in ("Instances", "Sessions", "Traces", "Api tokens", "Characters", "Lorebooks",
                    "Access attempts", "Access failures", "Access logs", "Axes", "Model name"):
        assert english not in page, english


def test_the_admin_in_english_keeps_its_names(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "", "root-password"))
    page = client.get("/admin/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for name in ("Instances", "Traces", "API tokens", "Lorebooks", "Access attempts",
                 "Login throttling"):
        assert f">{name}<" in page, name


def test_the_admins_lists_name_their_columns_and_choices_in_chinese(client, django_user_model,
                                                                    character):
    client.force_login(django_user_model.objects.create_superuser("root", "", "root-password"))
    page = client.get("/admin/library/character/",
                      HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    for name in ("角色 ID", "名称", "标签", "所有者", "可见性", "共享"):
        assert name in page, name
    for english in ("Character id", "Owner", "Visibility", ">shared<"):
        assert english not in page, english
    form = client.get(f"/admin/library/character/{character}/change/",
                      HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "开场白" in form and "Greeting" not in form


def test_the_login_attempts_list_heads_its_status_in_chinese(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "", "root-password"))
    AccessAttempt.objects.create(username="alice", ip_address="192.0.2.1", failures_since_start=2)
    page = client.get("/admin/axes/accessattempt/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert ">状态<" in page and "3 次机会剩余" in page
    assert "Status" not in page and "Attempt Remaining" not in page


def test_the_permission_choices_name_axes_and_the_apps_models_in_chinese(client,
                                                                        django_user_model):
    root = django_user_model.objects.create_superuser("root", "", "root-password")
    client.force_login(root)
    for url in (f"/admin/auth/user/{root.pk}/change/", "/admin/auth/group/add/"):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
        for name in ("登录限制 | 登录尝试 | 可以查看 登录尝试",
                     "登录限制 | 登录记录 | 可以删除 登录记录",
                     "登录限制 | 登录失败 | 可以修改 登录失败",
                     "聊天 | API 令牌 | 可以增加 API 令牌"):
            assert name in page, (url, name)
        assert "Can view access attempt" not in page and "Can add" not in page, url
    page = client.get("/admin/auth/group/add/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Login throttling | access attempt | Can view access attempt" in page


def test_the_login_attempts_rows_and_their_cleanup_speak_chinese(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "", "root-password"))
    attempt = AccessAttempt.objects.create(username="alice", ip_address="192.0.2.1",
                                           failures_since_start=1)
    page = client.get(f"/admin/axes/accessattempt/{attempt.pk}/delete/",
                      HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "alice 于 " in page and "的登录尝试" in page
    assert "Attempted Access" not in page
    answer = client.post("/admin/axes/accessattempt/", {
        "action": "cleanup_expired_attempts", "_selected_action": [attempt.pk]},
        HTTP_ACCEPT_LANGUAGE="zh-CN", follow=True)
    assert "已清理 0 条过期的登录尝试。" in answer.content.decode()
    assert "Cleaned up" not in answer.content.decode()
    english = client.get(f"/admin/axes/accessattempt/{attempt.pk}/delete/",
                         HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Login attempt of alice at " in english
