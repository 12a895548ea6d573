"""The aside without JavaScript: the drawer's form posts, the aside is answered whole, and the
chat page comes back with the panel open on the question and its answer; nothing is written
into the story; a refused question comes back in the box, said in the reader's language (with
a script the page asks over its socket: tests/chat/test_aside.py)."""

from __future__ import annotations

import pytest

from tests.pages.page_forms import page_forms
from tests.pages.page_text import visible_text
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _aside_form(client, instance_id: str) -> dict:
    page = client.get(f"/instances/{instance_id}/").content.decode()
    found = [f for f in page_forms(page) if f["url"] == f"/instances/{instance_id}/aside"]
    assert len(found) == 1, "no one aside form"
    return found[0]


def _panel(html: str) -> str:
    start = html.index('id="aside-card"')
    return html[start:html.index("</details>", start)]


def test_an_aside_without_a_script_is_answered_on_the_page_and_not_written_into_the_story(
        alice_client, store, instance, character, use_stub):
    session = store.session_path(instance, "sess_001").read_bytes()
    form = _aside_form(alice_client, instance)
    assert form["fields"]["speaker"] == character and "csrfmiddlewaretoken" in form["fields"]
    use_stub.script(Reply("只跟你说：东边的路不安全。"))

    done = alice_client.post(form["url"], {**form["fields"], "content": "哪条路安全？"})

    assert done.status_code == 302 and done["Location"] == f"/instances/{instance}/#aside-card"
    assert store.session_path(instance, "sess_001").read_bytes() == session
    panel = _panel(alice_client.get(done["Location"]).content.decode())
    assert 'data-testid="aside-card" open' in panel
    said = visible_text(panel)
    answer = "只跟你说：东边的路不安全。"
    assert said.index("哪条路安全？") < said.index("Alserqi") < said.index(answer)
    again = _panel(alice_client.get(f"/instances/{instance}/").content.decode())
    assert "东边的路" not in again and "open" not in again.split(">", 1)[0]  # shown once


def test_a_kept_aside_without_a_script_says_it_was_kept(alice_client, store, instance, use_stub):
    store.module_write("history", {**store.module_read("history"), "asides_keep": True})
    form = _aside_form(alice_client, instance)
    use_stub.script(Reply("记下了。"))
    done = alice_client.post(form["url"], {**form["fields"], "content": "记住这个。"})
    panel = _panel(alice_client.get(done["Location"]).content.decode())
    assert panel.count("记下了。") == 1 and "kept apart from the story" in panel


def test_a_refused_aside_without_a_script_comes_back_in_the_box_in_the_readers_language(
        alice_client, store, instance, settings, use_stub):
    settings.PERSONALAB_MAX_MESSAGE_CHARS = 10
    form = _aside_form(alice_client, instance)
    too_long = "这句话太长了，超过了十个字。"
    done = alice_client.post(form["url"], {**form["fields"], "content": too_long},
                             HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert done.status_code == 302 and use_stub.requests == []
    page = alice_client.get(done["Location"], HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "消息太长" in " ".join(visible_text(page)) and "message is too long" not in page
    assert f">{too_long}</textarea>" in _panel(page)


def test_another_accounts_chat_takes_no_aside(client, bob, instance, use_stub):
    client.force_login(bob)
    answer = client.post(f"/instances/{instance}/aside", {"content": "hello"})
    assert answer.status_code == 404 and use_stub.requests == []


def test_an_enormous_refused_aside_comes_back_cut_to_four_times_the_limit(
        alice_client, store, instance, settings, use_stub):
    settings.PERSONALAB_MAX_MESSAGE_CHARS = 10
    form = _aside_form(alice_client, instance)
    enormous = "问" * 1_000_000
    done = alice_client.post(form["url"], {**form["fields"], "content": enormous})
    assert done.status_code == 302 and use_stub.requests == []
    assert alice_client.session["aside_shown"]["draft"] == "问" * 40
    page = alice_client.get(done["Location"]).content.decode()
    assert f">{'问' * 40}</textarea>" in _panel(page) and "问" * 41 not in page
