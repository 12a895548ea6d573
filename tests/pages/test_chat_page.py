"""The chat page's own views: a long session shows only its newest messages (older ones on
request), inline edit / delete / undo / branch through the REST API the page script calls (the
backup-first history rewrite), the file's text for the edit box, one message rendered again
after a change, and the page in two languages."""

from __future__ import annotations

import json
import time

import pytest
from django.templatetags.static import static

from chat.history_manager.base import line_fingerprint
from chat.management.commands import serve
from chat.management.commands.bootstrap import login_text
from chat.selectors import CHAT_PAGE_SIZE, recap_next_due

pytestmark = pytest.mark.django_db


def _write(store, instance, count: int) -> None:
    read = store.session_read(instance, "sess_001")
    lines = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"line {n}",
              "turn": n // 2 + 1} for n in range(count)]
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])


def _shown(html: str) -> list[int]:
    return [int(part.split('"', 1)[0]) for part in html.split('data-index="')[1:]]


def test_a_long_session_renders_only_its_newest_messages(alice_client, store, instance):
    _write(store, instance, 5000)
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert _shown(page) == list(range(5000 - CHAT_PAGE_SIZE, 5000))
    assert f'data-before="{5000 - CHAT_PAGE_SIZE}"' in page
    older = alice_client.get(f"/instances/{instance}/messages?before=40").content.decode()
    assert _shown(older) == list(range(0, 40))
    assert "data-before" not in older  # nothing older than line 0
    # "Go to message number" reads down to an early line in one page of at most 1,000
    jump = alice_client.get(f"/instances/{instance}/messages?before=4000&shown=1500")
    assert _shown(jump.content.decode()) == list(range(3000, 4000))
    for shown in ("0", "x", "-3"):
        odd = alice_client.get(f"/instances/{instance}/messages?before=4000&shown={shown}")
        assert _shown(odd.content.decode()) == list(range(4000 - CHAT_PAGE_SIZE, 4000))
    # in plain sight in the story tools, not folded under the reading card's text size and
    # colours (a reader of a long import did not find it there)
    reading = page[page.index('id="reading-card"'):]
    assert 'id="message-jump"' not in reading[:reading.index("</details>")]
    assert 'id="message-jump"' in page


def _api(instance: str) -> str:
    return f"/api/v1/instances/{instance}/sessions/sess_001"


def test_inline_edit_goes_through_the_api_and_the_page_shows_the_new_text(alice_client, store,
                                                                          instance):
    _write(store, instance, 4)
    fp = line_fingerprint(store.session_read(instance, "sess_001").lines[2])
    source = alice_client.get(f"{_api(instance)}/messages/2", {"fingerprint": fp})
    assert source.status_code == 200 and source.json()["content"] == "line 2"
    edited = alice_client.put(f"{_api(instance)}/messages/2", {
        "fingerprint": fp, "text": "*new* <b>text</b>"}, content_type="application/json")
    assert edited.status_code == 200 and edited.json()["undo_token"]
    assert store.session_read(instance, "sess_001").lines[2]["content"] == "*new* <b>text</b>"
    shown = alice_client.get(f"/instances/{instance}/messages/line",
                             {"session": "sess_001", "index": 2}).content.decode()
    assert 'data-index="2"' in shown and "*new* &lt;b&gt;text&lt;/b&gt;" in shown
    backups = list((store.sessions_dir(instance) / "history").glob("sess_001.*.jsonl"))
    assert any('"line 2"' in b.read_text(encoding="utf-8") for b in backups)
    stale = alice_client.put(f"{_api(instance)}/messages/2", {"fingerprint": fp, "text": "again"},
                             content_type="application/json")
    assert stale.status_code == 409 and stale.json()["error"]["message"]
    assert alice_client.get(f"{_api(instance)}/messages/2", {"fingerprint": fp}).status_code == 409


def test_delete_then_undo_brings_the_message_back(alice_client, store, instance):
    _write(store, instance, 4)
    fp = line_fingerprint(store.session_read(instance, "sess_001").lines[3])
    deleted = alice_client.delete(f"{_api(instance)}/messages/3?fingerprint={fp}")
    assert deleted.json()["undo_seconds"] == 8  # long enough to reach Undo on a phone
    token = deleted.json()["undo_token"]
    assert [line["content"] for line in store.session_read(instance, "sess_001").lines] == [
        "line 0", "line 1", "line 2"]
    undo = f"/api/v1/instances/{instance}/history/undo"
    assert alice_client.post(undo, {"token": token},
                             content_type="application/json").status_code == 200
    assert store.session_read(instance, "sess_001").lines[-1]["content"] == "line 3"
    refused = alice_client.post(undo, {"token": "nope"}, content_type="application/json")
    assert refused.status_code >= 400 and refused.json()["error"]["message"]


def test_branch_from_here_starts_a_new_session_and_keeps_the_old_one(alice_client, store,
                                                                      instance):
    _write(store, instance, 6)
    fp = line_fingerprint(store.session_read(instance, "sess_001").lines[3])
    answer = alice_client.post(f"{_api(instance)}/branch", {"index": 3, "fingerprint": fp},
                               content_type="application/json").json()
    new = answer["session_id"]
    assert new != "sess_001" and store.instance_state_read(instance)["current_session_id"] == new
    assert [line["content"] for line in store.session_read(instance, new).lines] == [
        "line 0", "line 1", "line 2", "line 3"]
    assert len(store.session_read(instance, "sess_001").lines) == 6
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert _shown(page) == [0, 1, 2, 3] and f'data-session="{new}"' in page


def test_the_page_takes_every_address_from_the_server(alice_client, instance):
    """The script builds no address of its own: each comes from {% url %} on #chat."""
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    head = page.split('id="chat"', 1)[1].split(">", 1)[0]
    assert f'data-message-url="/api/v1/instances/{instance}/sessions/SESSION/messages/0"' in head
    assert f'data-line-url="/instances/{instance}/messages/line"' in head
    assert 'data-trace-url="/api/v1/traces/TRACE"' in head
    assert f'<script type="module" src="{static("chat/main.js")}">' in page
    for gone in ("source", "edit", "delete", "hide", "undo", "branch"):  # one way in: the API
        assert alice_client.post(f"/instances/{instance}/messages/{gone}").status_code == 404


def test_another_account_cannot_read_or_change_messages(client, bob, store, instance):
    _write(store, instance, 2)
    client.force_login(bob)
    fp = line_fingerprint(store.session_read(instance, "sess_001").lines[0])
    json_body = {"content_type": "application/json"}
    for method, url, data, extra in (
            ("get", f"{_api(instance)}/messages/0", {"fingerprint": fp}, {}),
            ("put", f"{_api(instance)}/messages/0", {"fingerprint": fp, "text": "y"}, json_body),
            ("delete", f"{_api(instance)}/messages/0?fingerprint={fp}", None, {}),
            ("post", f"{_api(instance)}/branch", {"index": 0, "fingerprint": fp}, json_body),
            ("get", f"/instances/{instance}/messages/line", {"session": "sess_001", "index": 0},
             {}),
            ("get", f"/instances/{instance}/messages", {"before": "1"}, {})):
        assert getattr(client, method)(url, data, **extra).status_code == 404
    assert store.session_read(instance, "sess_001").lines[0]["content"] == "line 0"


def test_the_page_speaks_chinese_when_the_browser_asks(alice_client, instance):
    page = alice_client.get(f"/instances/{instance}/", HTTP_ACCEPT_LANGUAGE="zh-CN").content
    page = page.decode()
    assert '<html lang="zh-hans">' in page and ">发送</button>" in page
    strings = json.loads(page.split('id="chat-strings" type="application/json">')[1]
                         .split("</script>")[0])
    assert "连接" in strings["queued"]
    english = alice_client.get(f"/instances/{instance}/").content.decode()
    assert ">Send</button>" in english


@pytest.mark.parametrize(("language", "word", "said"), [
    ("en", "prompt", "Last prompt: %(share)s of its budget (%(tokens)s)"),
    ("zh-hans", "提示词", "上一次提示词：占预算的 %(share)s（%(tokens)s）")])
def test_the_headers_prompt_size_mark_says_what_it_measures(alice_client, instance, language,
                                                           word, said):
    """A touch screen never shows a title: the phone header's "10%" had no meaning there
    (newcomer walk). It carries a visible word, and a reader hears the whole sentence."""
    alice_client.cookies["django_language"] = language
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    mark = page.split('id="budget-mini"', 1)[1].split("</span></span></span>", 1)[0]
    assert 'role="img"' in mark and f'<span aria-hidden="true">{word} <span' in mark
    strings = json.loads(page.split('id="chat-strings" type="application/json">')[1]
                         .split("</script>")[0])
    assert strings["promptShare"] == said


def test_an_empty_or_failed_reply_is_worded_in_the_pages_language(alice_client, store, instance):
    read = store.session_read(instance, "sess_001")
    store.session_rewrite(instance, "sess_001", [read.metadata, *[
        {"role": "user", "content": "hi", "turn": 1},
        {"role": "assistant", "content": "(无回复)", "empty": True, "turn": 1},
        {"role": "user", "content": "again", "turn": 2},
        {"role": "assistant", "content": "Half a reply\n(系统错误: Connection error.)",
         "error": True, "turn": 2}]])
    english = alice_client.get(f"/instances/{instance}/").content.decode()
    assert "(no reply)" in english and "无回复" not in english
    assert "Half a reply\n(system error: Connection error.)" in english
    assert "系统错误" not in english
    chinese = alice_client.get(f"/instances/{instance}/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "(无回复)" in chinese.content.decode()
    assert store.session_read(instance, "sess_001").lines[1]["content"] == "(无回复)"


def test_the_next_recap_turn():
    assert recap_next_due(last_turn=7, memory_settings={"recaps_enabled": False}) is None
    settings = {"recaps_enabled": True, "recap_every_n_rounds": 5}
    assert recap_next_due(last_turn=7, memory_settings=settings) == 10
    assert recap_next_due(last_turn=10, memory_settings=settings) == 15


def test_authors_note_keeps_depth_zero_and_refuses_bad_numbers_beside_the_field(
        alice_client, store, instance):
    url = f"/instances/{instance}/authors_note"
    saved = alice_client.post(url, {"text": "Rain.", "depth": "0", "frequency": "2"},
                              HTTP_HX_REQUEST="true")
    assert saved.status_code == 200 and "Saved." in saved.content.decode()
    assert store.memory_json_read(instance, "authors_note", {})["depth"] == 0
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'name="depth" type="number" min="0" max="50" value="0"' in page
    refused = alice_client.post(url, {"text": "Snow.", "depth": "-7", "frequency": "2"},
                                HTTP_HX_REQUEST="true")
    body = refused.content.decode()
    assert refused.status_code == 400 and 'data-testid="depth-error"' in body
    assert 'value="-7"' in body and "Nothing was saved." in body
    assert store.memory_json_read(instance, "authors_note", {})["text"] == "Rain."


def test_an_authors_note_over_4000_characters_is_refused_beside_its_box_not_cut_short(
        alice_client, store, instance):
    url = f"/instances/{instance}/authors_note"
    alice_client.post(url, {"text": "Rain.", "depth": "4", "frequency": "1"},
                      HTTP_HX_REQUEST="true")
    long_note = "Storm " * 700  # 4,200 characters
    refused = alice_client.post(url, {"text": long_note, "depth": "4", "frequency": "1"},
                                HTTP_HX_REQUEST="true")
    body = refused.content.decode()
    assert refused.status_code == 400 and 'data-testid="note-text-error"' in body
    assert "4000" in body and long_note.strip() in body and "Nothing was saved." in body
    assert store.memory_json_read(instance, "authors_note", {})["text"] == "Rain."


def test_the_start_message_names_the_port_make_run_serves_on(data_dir, settings):
    from io import StringIO

    from django.core.management import call_command

    settings.SERVE_PORT = 8123
    out = StringIO()
    call_command("bootstrap", stdout=out)
    assert "Open http://127.0.0.1:8123/ and log in as  admin / " in out.getvalue()
    # `make run` (manage.py serve) says it once the server listens, last on the console.
    ready = StringIO()
    serve.Command(stdout=ready)._ready(time.monotonic(), login_text())
    assert "PersonaLab is ready" in ready.getvalue()
    assert "Open http://127.0.0.1:8123/ and log in as  admin / " in ready.getvalue()


def test_missing_pages_are_styled_sentences(alice_client, settings):
    settings.DEBUG = False
    page = alice_client.get("/instances/nope_404/")
    body = page.content.decode()
    assert page.status_code == 404 and "app.css" in body and "<h1>Not found</h1>" in body


def test_a_form_address_opened_in_the_browser_is_a_styled_sentence(alice_client):
    """`/instances/new` takes the start form's POST; opened from the address bar it was
    Django's bare, empty 405."""
    response = alice_client.get("/instances/new")
    assert response.status_code == 405 and response["Allow"] == "POST"
    page = response.content.decode()
    assert "This address is for a form&#x27;s button, not for opening." in page
    assert "Back to your chats" in page
    chinese = alice_client.get("/instances/new", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "不能直接打开" in chinese


def test_a_server_error_page_says_nothing_was_lost(rf):
    from django.views.defaults import server_error

    body = server_error(rf.get("/")).content.decode()
    assert "app.css" in body and "Nothing you wrote is lost" in body


def test_the_admin_lists_instances_read_only_and_offers_no_broken_add_page(
        client, django_user_model, instance):
    client.force_login(django_user_model.objects.create_superuser("root", "", "root-password"))
    listing = client.get("/admin/chat/instance/")
    assert listing.status_code == 200 and instance in listing.content.decode()
    assert "/admin/chat/instance/add/" not in listing.content.decode()
    assert client.get("/admin/chat/instance/add/").status_code == 403
    assert client.get(f"/admin/chat/instance/{instance}/change/").status_code == 200  # a view


def test_the_instance_list_shows_the_latest_message_from_the_file_tail(alice_client, store,
                                                                        instance):
    _write(store, instance, 3000)
    page = alice_client.get("/").content.decode()
    assert f'href="/instances/{instance}/"' in page and "line 2999" in page
    assert "line 2998" not in page


def test_a_player_sees_the_settings_read_only(alice_client, settings):
    page = alice_client.get("/settings/").content.decode()
    assert 'data-testid="settings-read-only"' in page
    assert '<fieldset class="plain" disabled>' in page and "保存 Save" not in page
    # The note stands between Reading, which the player changes, and the staff's settings: it
    # says which it means (it read "these settings", as if Reading were locked too).
    assert "Only staff can change the settings below" in page and "Reading, above, is yours" in page
    chinese = alice_client.get("/settings/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "以下设置仅管理员可修改" in chinese
    # ...and the fields under it look locked: they read as editable (newcomer walk)
    css = (settings.BASE_DIR / "static" / "app.css").read_text(encoding="utf-8")
    rule = css.split("input:disabled, select:disabled, textarea:disabled {", 1)[1].split("}")[0]
    assert "border-style:dashed" in rule and "cursor:not-allowed" in rule


def test_a_characters_picture_is_served_to_who_may_use_it_and_404_to_others(
        client, alice, bob, store):
    from library.character_services import character_save

    character = character_save(store, data={"name": "Quiet one", "visibility": "private"},
                               character_id=None, user=alice)
    from tests.png_files import tiny_png

    picture = tiny_png()
    (store.character_dir(character) / "avatar.png").write_bytes(picture)
    client.force_login(alice)
    response = client.get(f"/library/characters/{character}/avatar.png")
    assert response.status_code == 200 and response.content == picture
    assert response["Content-Type"] == "image/png"
    client.force_login(bob)
    assert client.get(f"/library/characters/{character}/avatar.png").status_code == 404


def test_a_page_opened_mid_reply_shows_the_reasoning_streamed_so_far(alice_client, store,
                                                                     instance):
    with store.instance_lock(instance):  # the turn holds it while the reply streams
        writer = store.assistant_writer(instance, "sess_001", turn=1).open()
        writer.append("She turns")
        writer.reasoning_append("Is the stranger armed?")
        writer.append(" to the door")
        page = alice_client.get(f"/instances/{instance}/").content.decode()
        writer.close_quietly()
    streaming = page.split('id="streaming-line"')[1].split("</article>")[0]
    assert 'data-testid="reasoning-live"' in streaming
    assert "Is the stranger armed?" in streaming and "She turns to the door" in streaming


@pytest.mark.parametrize(("language", "said"), [
    ("en", "Summarize turns this conversation into memory and goes on in a new one"),
    ("zh-hans", "汇总会把这段对话记入记忆，并在新的一段对话中继续"),
])
def test_summarize_says_before_it_is_pressed_that_the_chat_goes_on_in_a_new_conversation(
        alice_client, instance, language, said):
    """A newcomer looking for "a new conversation" did not know Summarize starts one (newcomer
    report, F11): it said so only after."""
    alice_client.cookies["django_language"] = language
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    hint = page.split('id="summarize-hint">', 1)[1].split("</p>", 1)[0]
    assert said in hint
    assert 'data-memory-action="summarize" aria-describedby="summarize-hint"' in page

