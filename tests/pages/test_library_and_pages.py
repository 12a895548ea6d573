"""Authors' UI, admin, reindex, the demo, accounts and isolation."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from chat.models import Instance, Session
from library.lore.services import lorebook_save
from library.models import Background, Character

pytestmark = pytest.mark.django_db


def test_author_creates_character_and_background_in_the_browser(alice_client, store):
    response = alice_client.post("/library/characters/new", {
        "name": "Mira", "base_persona": "A field medic.", "greeting": "Hold still.",
        "tags": "medic\r\n废土"})
    assert response.status_code == 302
    definition = store.character_read("char_mira")
    assert definition["base_persona"] == "A field medic." and definition["tags"] == ["medic", "废土"]
    assert Character.objects.get(character_id="char_mira").name == "Mira"

    response = alice_client.post("/library/backgrounds/new", {
        "name": "Sea", "world_setting": "Drowned cities.", "outline_text": "Find a boat\nSail"})
    background_id = response.url.rstrip("/").split("/")[-1]
    url = f"/library/backgrounds/{background_id}/outline"
    alice_client.post(url, {"action": "add", "content": "Reach the tower"}, HTTP_HX_REQUEST="true")
    alice_client.post(url, {"action": "edit", "position": "1", "content": "Steal a boat"})
    alice_client.post(url, {"action": "up", "position": "3"})
    page = alice_client.post(url, {"action": "delete", "position": "3"})
    assert page.status_code == 200 and b"outline-editor" in page.content
    outline = store.background_read(background_id)["story_outline"]
    assert outline == [{"index": 1, "content": "Steal a boat"},
                       {"index": 2, "content": "Reach the tower"}]
    assert Background.objects.get(background_id=background_id).outline_length == 2


@pytest.mark.parametrize("typed, points", [
    ("1. Arrive at the port\n2. Meet Mara\n3) Find the warehouse\n4、天亮前离开",
     ["Arrive at the port", "Meet Mara", "Find the warehouse", "天亮前离开"]),
    ("1984 was the year\n3.5 million people came\nAnd then the flood",
     ["1984 was the year", "3.5 million people came", "And then the flood"]),
    ("1. Arrive\nMeet Mara", ["1. Arrive", "Meet Mara"]),
])
def test_an_outline_typed_with_its_own_numbers_is_not_numbered_twice(alice_client, store,
                                                                     typed, points):
    """The outline numbers its points itself: "1. Arrive" typed in the box is point 1
    "Arrive" (it read "1. 1. Arrive"), unless only some lines were numbered."""
    response = alice_client.post("/library/backgrounds/new", {
        "name": "Port", "world_setting": "A harbour.", "outline_text": typed})
    background_id = response.url.rstrip("/").split("/")[-1]
    outline = store.background_read(background_id)["story_outline"]
    assert [point["content"] for point in outline] == points


def test_the_lorebook_ticks_mark_a_private_book_and_say_who_reads_it(alice_client, alice, store):
    for name, visibility in (("Own notes", "private"), ("Harbour lore", "shared")):
        lorebook_save(store, user=alice, data={"name": name, "visibility": visibility,
                                               "entries": []})
    page = alice_client.get("/library/characters/new").content.decode()
    assert re.search(r'lorebook-name">Own notes</bdi> <span class="muted">\(private\)', page)
    assert re.search(r'lorebook-name">Harbour lore</bdi></label>', page)
    assert "reads only the shared books" in page


def test_a_world_info_file_imported_from_the_library_opens_as_a_book_named_after_it(
        alice_client, store):
    """The library's "Import a lorebook" form (no script of its own): SillyTavern's world info
    becomes a book named after its file, whose editor opens with its entries; an entry's
    secondary keys stay in force (keysecondary, selectiveLogic 1 = NOT ALL)."""
    def entry(uid: int, key: list[str], content: str, **fields) -> dict:
        return {"uid": uid, "key": key, "keysecondary": [], "content": content,
                "constant": False, "selective": True, "selectiveLogic": 0, "order": 100,
                "position": 0, "depth": 4, **fields}

    world = {"entries": {
        "0": entry(0, ["smuggler"], "Smugglers use the north cove at low tide.",
                   keysecondary=["cove", "tide"], selectiveLogic=1),
        "1": entry(1, [], "Saltmere is a cold northern fishing town.", constant=True,
                   position=4, depth=2)}}
    response = alice_client.post("/library/lorebooks/upload", {"file": SimpleUploadedFile(
        "Saltmere 390.json", json.dumps(world).encode(), content_type="application/json")},
        follow=True)
    landed = response.redirect_chain[-1][0]
    assert re.fullmatch(r"/library/lorebooks/[^/]+/", landed), landed
    page = response.content.decode()
    assert 'name="name" value="Saltmere 390"' in page
    assert "Smugglers use the north cove at low tide." in page
    book = store.lorebook_read(landed.rstrip("/").rsplit("/", 1)[-1])
    smuggler = next(e for e in book["entries"] if e["keys"] == ["smuggler"])
    assert smuggler["secondary_keys"] == ["cove", "tide"]
    assert smuggler["selective_logic"] == "not_all"


def test_start_instance_in_the_browser_writes_seed_formats(alice_client, store, character,
                                                          background):
    response = alice_client.post("/instances/new", {"character_id": character,
                                                    "background_id": background})
    instance_id = response.url.strip("/").split("/")[-1]
    state = store.instance_state_read(instance_id)
    assert state["plot_state"] == {"current_plot_index": 1, "current_status": "pending",
                                   "no_update_count": 0}
    assert state["owner"] == "alice" and state["current_session_id"] == "sess_001"
    assert store.character_state_read(instance_id)["evolved_persona"] == ""
    first = store.session_path(instance_id, "sess_001").read_text().splitlines()[0]
    assert json.loads(first)["type"] == "metadata"
    page = alice_client.get(f"/instances/{instance_id}/")
    assert page.status_code == 200 and "与仇人对峙" in page.content.decode()


def test_deleting_a_character_in_use_is_refused(alice_client, instance, character, store):
    response = alice_client.post(f"/library/characters/{character}/delete", follow=True)
    text = response.content.decode()
    assert "is used by these chats: the chat with Alserqi started 20" in text
    assert instance not in text
    assert character in store.character_ids()


def test_a_deleted_character_is_offered_back_to_its_owner_and_restored(
        alice_client, bob, character, store):
    page = alice_client.post(f"/library/characters/{character}/delete", follow=True)
    assert character not in store.character_ids()
    assert "Deleted Alserqi by mistake?" in page.content.decode()
    bob_client = Client()
    bob_client.force_login(bob)  # not bob's: neither offered nor restored
    assert "by mistake" not in bob_client.get(page.wsgi_request.get_full_path()).content.decode()
    assert bob_client.post(f"/library/characters/{character}/restore").status_code == 404
    response = alice_client.post(f"/library/characters/{character}/restore", follow=True)
    assert response.redirect_chain[-1][0] == f"/library/characters/{character}/"
    assert "Character Alserqi restored." in response.content.decode()
    assert store.character_read(character)["name"] == "Alserqi"
    assert Character.objects.filter(character_id=character).exists()
    assert alice_client.post(f"/library/characters/{character}/restore").status_code == 404


def test_admin_edit_lands_in_the_file(client, django_user_model, store, character):
    admin = django_user_model.objects.create_superuser("root", "", "pw-123456")
    client.force_login(admin)
    response = client.post(f"/admin/library/character/{character}/change/", {
        "name": "Alserqi the Elder", "tags": "old", "base_persona": "Older now.",
        "greeting": ""})
    assert response.status_code == 302
    assert store.character_read(character)["base_persona"] == "Older now."
    assert store.character_read(character)["name"] == "Alserqi the Elder"


def test_reindex_restores_every_row_from_the_files(store, instance, alice):
    before = (list(Character.objects.values_list("pk", "name")),
              list(Instance.objects.values_list("pk", "owner__username", "current_session_id")),
              list(Session.objects.values_list("instance_id", "session_id")))
    Instance.objects.all().delete()
    Character.objects.all().delete()
    Background.objects.all().delete()
    call_command("reindex")
    after = (list(Character.objects.values_list("pk", "name")),
             list(Instance.objects.values_list("pk", "owner__username", "current_session_id")),
             list(Session.objects.values_list("instance_id", "session_id")))
    assert after == before


def test_seed_demo_is_the_seed_example_and_idempotent(store, django_user_model, capsys,
                                                      monkeypatch):
    monkeypatch.setattr("chat.management.commands.seed_demo.Command._index_memory",
                        lambda self, store: None)
    django_user_model.objects.create_superuser("admin", "", "pw-123456")
    call_command("seed_demo")
    snapshot = {p: p.read_bytes() for p in store.root.rglob("*") if p.is_file()
                and "sqlite" not in p.name}
    call_command("seed_demo")
    assert {p: p.read_bytes() for p in snapshot} == snapshot
    state = store.instance_state_read("inst_001")
    assert state["current_session_id"] == "sess_003" and state["owner"] == "admin"
    assert state["plot_state"] == {"current_plot_index": 3, "current_status": "in_progress",
                                   "no_update_count": 2}
    assert len(store.background_read("bg_wasteland")["story_outline"]) == 10
    read = store.session_read("inst_001", "sess_003")
    assert read.metadata["continued_from"] == "sess_002" and read.last_turn == 41
    assert read.messages[-1]["content"] == "等他们分散。Victor不可能一直和他们在一起。"
    assert store.session_read("inst_001", "sess_002").metadata["continued_from"] == "sess_001"


def test_pages_need_login(client, instance):
    for url in ("/", f"/instances/{instance}/", "/library/", "/settings/"):
        response = client.get(url)
        assert response.status_code == 302 and "/login/" in response.url


def test_login_lands_on_the_list_of_the_players_chats(client, alice, instance):
    response = client.post("/login/?next=/", {"username": "alice", "password": "alice-password"})
    assert response.status_code == 302 and response.url == "/"
    home = client.get(response.url).content.decode()
    assert re.search(r"<title>\s*PersonaLab\s*</title>", home)
    assert re.findall(r"<h1[^>]*>(.*?)</h1>", home)[0] == "Your chats"
    assert home.count("Log out alice") == 1
    assert home.count(f'<a href="/instances/{instance}/"') == 1


def test_other_users_instance_page_is_404_and_staff_sees_it(client, bob, staff, instance):
    client.force_login(bob)
    assert client.get(f"/instances/{instance}/").status_code == 404
    assert instance not in client.get("/").content.decode()
    client.force_login(staff)
    assert client.get(f"/instances/{instance}/").status_code == 200


def test_messages_and_persona_html_are_escaped(alice_client, store, instance):
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {
            "role": "user", "content": "<script>alert(1)</script>\nline two", "turn": 1})
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert "<script>alert(1)</script>" not in page
    # Raw (escaped) text; the page script renders it as sanitized Markdown.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\nline two" in page


def test_offline_demo_is_labelled_in_the_ui(alice_client, instance):
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert "Offline demo" in page


def test_settings_page_validates_field_by_field(client, staff, store):
    client.force_login(staff)
    form = {"thresholds.rag_fallback_threshold": "0", "thresholds.summary_last_n_turns": "5",
            "limits.max_total_tokens": "100000", "limits.middle_section_warning_tokens": "60000",
            "limits.conversation_max_tokens": "100000", "preferences.summary_order": "summary_first",
            "preferences.conversation_load_all": "on", "director.enabled": "on"}
    response = client.post("/settings/", form)
    page = response.content.decode()
    assert response.status_code == 400
    assert 'data-field="thresholds.rag_fallback_threshold"' in page
    assert 'data-field="limits.middle_section_warning_tokens"' in page
    assert not store.config_path.exists()
    form.update({"thresholds.rag_fallback_threshold": "4",
                 "limits.middle_section_warning_tokens": "5000"})
    assert client.post("/settings/", form).status_code == 302
    config = store.config_read()
    assert config["thresholds"]["rag_fallback_threshold"] == 4
    assert store.module_read("director")["rag_fallback_threshold"] == 4
    client.post("/settings/", {"reset": "1"})
    assert store.config_read()["limits"]["middle_section_warning_tokens"] == 20000


def test_settings_page_validates_module_numbers_and_saves_them(client, staff, store):
    from chat.history_manager.base import history_settings

    client.force_login(staff)
    history_before = store.module_read("history")
    form = {"thresholds.rag_fallback_threshold": "3", "thresholds.summary_last_n_turns": "5",
            "limits.max_total_tokens": "100000", "limits.middle_section_warning_tokens": "20000",
            "limits.conversation_max_tokens": "100000", "preferences.summary_order": "summary_first",
            "history.undo_window_seconds": "61", "history.page_size": "9",
            "memory.recap_every_n_rounds": "100"}
    response = client.post("/settings/", form)
    page = response.content.decode()
    assert response.status_code == 400
    assert 'data-field="history.undo_window_seconds"' in page
    assert 'data-field="history.page_size"' in page
    assert 'data-field="memory.recap_every_n_rounds"' not in page
    assert not store.config_path.exists() and store.module_read("history") == history_before
    form.update({"history.undo_window_seconds": "10", "history.page_size": "10"})
    assert client.post("/settings/", form).status_code == 302
    assert history_settings(store) == {"undo_window_seconds": 10.0, "page_size": 10}
    assert store.module_read("memory")["recap_every_n_rounds"] == 100
    assert 'value="10"' in client.get("/settings/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_trace_page_shows_sections(alice_client, store, instance):
    import asyncio

    from chat.play.turn import turn_run

    async def emit(event):
        pass

    result = asyncio.run(turn_run(store, instance_id=instance, user_text="hi", emit=emit))
    page = alice_client.get(f"/traces/{result.trace_id}/").content.decode()
    assert "base_persona" in page and "conversation" in page and "Messages sent" in page
    assert 'id="director-outline"' in page and "Read from the reply" in page
    assert "total_ms" in page and "{&#x27;" not in page, "timings and director shown as tables, not dicts"


def test_admin_delete_selected_removes_the_files_so_reindex_keeps_them_gone(
        client, django_user_model, store, character):
    admin = django_user_model.objects.create_superuser("root", "", "pw-123456")
    client.force_login(admin)
    response = client.post("/admin/library/character/", {
        "action": "delete_selected", "_selected_action": [character], "post": "yes"})
    assert response.status_code == 302
    assert character not in store.character_ids()
    call_command("reindex")
    assert not Character.objects.filter(pk=character).exists()


def test_admin_does_not_offer_deleting_index_only_rows(client, django_user_model, instance):
    admin = django_user_model.objects.create_superuser("root", "", "pw-123456")
    client.force_login(admin)
    page = client.get("/admin/chat/instance/").content.decode()
    assert "delete_selected" not in page
    response = client.post(f"/admin/chat/instance/{instance}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert Instance.objects.filter(pk=instance).exists()


@pytest.mark.django_db
def test_pages_name_an_icon_that_exists_so_browsers_do_not_log_a_404(client):
    from django.contrib.staticfiles import finders
    from django.contrib.staticfiles.storage import staticfiles_storage

    page = client.get("/login/").content.decode()
    match = re.search(r'<link rel="icon" href="([^"]+)"', page)
    assert match, "no icon link: the browser asks for /favicon.ico and logs a 404"
    name = match.group(1).removeprefix(staticfiles_storage.base_url).partition("/")[2]
    assert finders.find(name) is not None


@pytest.mark.django_db
def test_the_personas_list_asks_only_for_avatars_that_exist(client, alice, store):
    from library.personas.services import persona_avatar_save, persona_create
    from tests.png_files import PNG_1PX

    plain = persona_create(store, owner=alice, data={"name": "Plain"})
    pictured = persona_create(store, owner=alice, data={"name": "Pictured"})
    persona_avatar_save(store, actor=alice, persona_id=pictured, data=PNG_1PX)
    client.force_login(alice)
    page = client.get("/library/personas/").content.decode()
    assert f"/library/personas/{pictured}/avatar" in page
    assert f"/library/personas/{plain}/avatar" not in page  # would be a 404 in the console
    assert client.get(f"/library/personas/{pictured}/avatar").status_code == 200


def test_an_empty_home_points_a_sillytavern_newcomer_at_the_librarys_imports(client, bob, alice,
                                                                          instance):
    """A newcomer's first move is importing their cards; the empty home only said "Start one
    below", where a picker held nothing of theirs."""
    client.force_login(bob)
    hint = 'data-testid="home-import-hint">'
    home = client.get("/").content.decode()
    assert 'in the <a href="/library/">Library</a>.' in home.split(hint, 1)[1].split("</p>", 1)[0]
    zh = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '在<a href="/library/">资料库</a>里导入' in zh.split(hint, 1)[1]
    client.force_login(alice)  # a player with a chat has it listed instead
    assert hint not in client.get("/").content.decode()
