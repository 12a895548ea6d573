"""A refusal on a page (an AppError escaping a page view) reaches the user the same way
everywhere: a message and the way back for a form, the error partial with its status for htmx,
while the API keeps its JSON error shape (tests/api/test_api.py and the REST tests)."""

from __future__ import annotations

from library.character_services import character_save
from library.personas.services import persona_create


def _hidden_persona(store, bob) -> str:
    return persona_create(store, owner=bob, data={"name": "Bob's"})


def test_a_refused_form_goes_back_to_the_page_it_was_sent_from_with_the_reason(
        client, store, alice, bob, instance):
    hidden = _hidden_persona(store, bob)
    client.force_login(alice)
    came_from = f"http://testserver/instances/{instance}/?session=older"
    answer = client.post(f"/instances/{instance}/persona", {"persona_id": hidden},
                         HTTP_REFERER=came_from)
    assert answer.status_code == 302 and answer["Location"] == came_from
    page = client.get(f"/instances/{instance}/").content.decode()
    assert "not found" in page
    assert store.instance_state_read(instance)["persona_id"] is None
    # A Referer from another site is not followed: back to the chat page the form is on.
    answer = client.post(f"/instances/{instance}/persona", {"persona_id": hidden},
                         HTTP_REFERER="https://elsewhere.example/instances/x/")
    assert answer.status_code == 302 and answer["Location"] == f"/instances/{instance}/"


def test_a_refused_htmx_action_answers_the_error_partial_with_its_status(client, store, alice,
                                                                         bob, instance):
    hidden = _hidden_persona(store, bob)
    client.force_login(alice)
    answer = client.post(f"/instances/{instance}/persona", {"persona_id": hidden},
                         HTTP_HX_REQUEST="true")
    assert answer.status_code == 400
    body = answer.content.decode()
    assert 'role="alert"' in body and "not found" in body and "<html" not in body
    assert store.instance_state_read(instance)["persona_id"] is None


def test_a_refusal_on_a_page_reads_in_the_readers_language(client, store, alice, bob, instance):
    hidden = _hidden_persona(store, bob)
    client.force_login(alice)
    answer = client.post(f"/instances/{instance}/persona", {"persona_id": hidden},
                         HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert answer.status_code == 400
    assert f"找不到人设 &#x27;{hidden}&#x27;" in answer.content.decode()


BUSY_ZH = "正忙：这个聊天的回复还在生成，或另一项更改正在进行；等它结束后再试"


def test_a_background_switch_refused_as_busy_is_said_on_the_chat_page_in_chinese(
        client, store, alice, instance, background):
    client.force_login(alice)
    lock = store.instance_lock(instance).acquire()
    try:
        answer = client.post(f"/instances/{instance}/background",
                             {"background_id": background}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    finally:
        lock.release()
    assert answer.status_code == 302 and answer["Location"] == f"/instances/{instance}/"
    page = client.get(answer["Location"], HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert [str(note) for note in page.context["messages"]] == [
        f"聊天 {instance} 正忙：回复还在生成，或另一项更改正在进行；请等它结束"]


def test_a_persona_change_refused_as_busy_is_said_in_chinese(client, store, alice, instance):
    client.force_login(alice)
    lock = store.instance_lock(instance).acquire()
    try:
        answer = client.post(f"/instances/{instance}/persona/persona_save", {"text": "new"},
                             HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="zh-hans")
    finally:
        lock.release()
    assert answer.status_code == 409 and BUSY_ZH in answer.content.decode()


def test_a_chat_that_cannot_start_says_why_in_chinese_back_on_its_page(
        client, store, alice, bob):
    hidden = character_save(store, user=bob, character_id=None,
                            data={"name": "Bob's own", "visibility": "private"})
    client.force_login(alice)
    answer = client.post("/instances/new", {"character_id": hidden},
                         HTTP_REFERER="http://testserver/library/",
                         HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert answer.status_code == 302 and answer["Location"] == "http://testserver/library/"
    page = client.get("/library/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    said = [str(note) for note in page.context["messages"]]
    assert len(said) == 1 and "找不到" in said[0] and "not found" not in said[0], said


def test_a_summarize_refused_as_busy_says_so_in_the_readers_language(client, store, alice,
                                                                     instance):
    client.force_login(alice)
    lock = store.instance_lock(instance).acquire()
    try:
        answer = client.post(f"/instances/{instance}/memory/summarize", HTTP_HX_REQUEST="true",
                             HTTP_ACCEPT_LANGUAGE="zh-hans")
    finally:
        lock.release()
    body = answer.content.decode()
    assert "正忙" in body and "busy" not in body, body
