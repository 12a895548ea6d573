"""Renaming, archiving and restoring an instance from the home page and the chat page:
archiving moves it aside (its files stay), restoring brings it back."""

from __future__ import annotations

import pytest

from chat.models import Instance
from chat.services.instances import instance_create


def _home_sections(page: str) -> tuple[str, str]:
    active, _, archived = page.partition('data-testid="archived-instances"')
    return active, archived


def test_rename_from_home_shows_the_name_on_the_list_and_the_chat_page(alice_client, store,
                                                                       instance):
    response = alice_client.post(f"/instances/{instance}/manage", {"name": "  Night run  "})
    assert response.status_code == 302 and response["Location"] == "/"
    assert store.instance_state_read(instance)["name"] == "Night run"
    home = alice_client.get("/").content.decode()
    assert "Night run" in home and "Renamed." in home
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'data-testid="chat-title" title="Night run">Night run</h1>' in page


def test_archive_moves_the_instance_aside_and_restore_brings_it_back(alice_client, store,
                                                                     instance):
    def files() -> list[str]:
        return sorted(p.name for p in (store.root / "instances" / instance).rglob("*")
                      if not p.name.startswith("."))

    session_files = files()
    assert alice_client.post(f"/instances/{instance}/manage", {"archived": "1"}).status_code == 302
    active, archived = _home_sections(alice_client.get("/").content.decode())
    assert f"/instances/{instance}/" not in active
    assert f"/instances/{instance}/" in archived and 'data-testid="instance-restore"' in archived
    assert files() == session_files  # nothing destroyed
    chat = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'data-testid="instance-archived"' in chat

    response = alice_client.post(f"/instances/{instance}/manage",
                                 {"archived": "0", "back": "instance"})
    assert response["Location"] == f"/instances/{instance}/"
    active, archived = _home_sections(alice_client.get("/").content.decode())
    assert f"/instances/{instance}/" in active and not archived
    assert store.instance_state_read(instance)["archived"] is False


def test_a_too_long_name_is_refused_with_a_sentence_and_nothing_changes(alice_client, store,
                                                                        instance):
    alice_client.post(f"/instances/{instance}/manage", {"name": "kept"})
    response = alice_client.post(f"/instances/{instance}/manage", {"name": "x" * 201},
                                 follow=True)
    page = response.content.decode()
    assert "Nothing was changed: the name must be text of at most 200 characters." in page
    assert store.instance_state_read(instance)["name"] == "kept"


@pytest.mark.parametrize("form", [{"name": "mine now"}, {"archived": "1"}])
def test_another_account_cannot_rename_or_archive(client, bob, store, instance, form):
    client.force_login(bob)
    assert client.post(f"/instances/{instance}/manage", form).status_code == 404
    state = store.instance_state_read(instance)
    assert not state.get("name") and not state.get("archived")


def test_the_chat_page_and_home_offer_rename_and_archive(alice_client, instance):
    for url in ("/", f"/instances/{instance}/"):
        page = alice_client.get(url).content.decode()
        assert 'data-testid="instance-rename"' in page
        assert 'data-testid="instance-archive"' in page


def test_the_refusal_is_said_in_the_players_language(alice_client, store, instance):
    alice_client.post(f"/instances/{instance}/manage", {"name": "kept"})
    response = alice_client.post(f"/instances/{instance}/manage", {"name": "x" * 201},
                                 follow=True, HTTP_ACCEPT_LANGUAGE="zh-CN")
    page = response.content.decode()
    assert "未做任何修改：名称必须是不超过 200 个字符的文本。" in page
    assert "Nothing was changed" not in page
    assert store.instance_state_read(instance)["name"] == "kept"


def test_home_lists_the_chat_played_last_first(alice_client, store, alice, character):
    """The list was in the order the chats were made: the one played tonight sank under every
    chat started since (SillyTavern's recent chats go by the last message)."""

    older, newer = (instance_create(store, owner=alice, character_id=character)
                    for _ in range(2))
    Instance.objects.filter(instance_id=older).update(created_at="2020-01-01T00:00:00Z")
    session_id = store.instance_state_read(older)["current_session_id"]
    read = store.session_read(older, session_id)
    store.session_rewrite(older, session_id, [read.metadata, *read.lines, {
        "role": "user", "content": "still here", "turn": 1,
        "timestamp": "2999-01-01T00:00:00Z"}])
    home = alice_client.get("/").content.decode()
    assert home.index(f"/instances/{older}/") < home.index(f"/instances/{newer}/")


@pytest.mark.parametrize("language, started, conversation", [
    ("en", "started", "conversation 3"), ("zh-hans", "开始于", "第 3 段对话")])
def test_two_unnamed_chats_with_one_character_are_told_apart_on_home(
        alice_client, store, alice, character, language, started, conversation):
    """Two chats with the same character differed on the home page only by their last line:
    an unnamed one says when it started and, past its first, which conversation it is on."""
    first, second = (instance_create(store, owner=alice, character_id=character)
                     for _ in range(2))
    Instance.objects.filter(instance_id=first).update(created_at="2026-11-30T20:15:00Z")
    Instance.objects.filter(instance_id=second).update(created_at="2026-12-01T21:40:00Z",
                                                       current_session_id="sess_003")
    alice_client.post(f"/instances/{first}/manage", {"name": "Night run"})
    alice_client.cookies["django_language"] = language
    home = alice_client.get("/").content.decode()
    rows = {i: home.split(f'href="/instances/{i}/"', 1)[1].split("</li>", 1)[0]
            for i in (first, second)}
    assert 'data-testid="instance-started"' not in rows[first]  # its own name tells it apart
    shown = rows[second].split('data-testid="instance-started">', 1)[1].split("</span>", 1)[0]
    assert shown == (f'{started} <time datetime="2026-12-01T21:40:00Z">2026-12-01 21:40</time>'
                     f" · {conversation}")


def test_home_shows_the_last_line_without_the_directors_marker(alice_client, store, alice,
                                                               character):
    """The chat page shows a progress marker as a badge; the home page showed it as written,
    "[PROGRESS:5:in_progress]" at the end of the last line."""
    instance_id = instance_create(store, owner=alice, character_id=character)
    session_id = store.instance_state_read(instance_id)["current_session_id"]
    read = store.session_read(instance_id, session_id)
    store.session_rewrite(instance_id, session_id, [read.metadata, *read.lines, {
        "role": "assistant", "content": "*She nods.* We go at dawn.[PROGRESS:2:in_progress]",
        "turn": 1, "timestamp": "2999-01-01T00:00:00Z"}])
    home = alice_client.get("/").content.decode()
    assert "She nods. We go at dawn." in home
    assert "[PROGRESS:" not in home
