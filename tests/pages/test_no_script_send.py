"""Without JavaScript the chat page's box posts: Send runs the same turn as the WebSocket (the
offline demo answers here) and comes back at the reply, whole; an empty Send lets the character
speak again; ↻ and → redo the last reply; a refused line comes back in the box, said in the
reader's language, the file untouched. The page links to its older lines and back."""

from __future__ import annotations

import html
import re

import pytest

from tests.chat.history_files import chat_lines_append
from tests.pages.page_forms import page_forms

pytestmark = pytest.mark.django_db(transaction=True)  # a turn writes from its threads


def _send_form(client, instance_id: str) -> dict:
    page = client.get(f"/instances/{instance_id}/").content.decode()
    form, = [f for f in page_forms(page) if f["url"] == f"/instances/{instance_id}/send"]
    return form


def _lines(store, instance_id) -> list[dict]:
    return store.session_read(instance_id, "sess_001").lines


def test_send_without_a_script_answers_whole_and_comes_back_at_the_reply(
        alice_client, store, instance):
    form = _send_form(alice_client, instance)
    assert ("action", "send", False) in form["buttons"]  # Send is on, not greyed
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    box = re.search(r'<textarea id="input"[^>]*placeholder="([^"]*)"', page)[1]
    assert "Enter for a new line" in box and "Enter to send" not in box  # no script's Enter
    answer = alice_client.post(form["url"], {**form["fields"], "content": "Where is Victor?",
                                             "action": "send"})
    lines = _lines(store, instance)
    assert [line["role"] for line in lines[-2:]] == ["user", "assistant"]
    assert lines[-2]["content"] == "Where is Victor?" and lines[-1]["content"]
    assert answer.status_code == 302
    assert answer["Location"] == f"/instances/{instance}/#m-{len(lines) - 1}"
    page = alice_client.get(answer["Location"]).content.decode()
    assert html.escape(lines[-1]["content"].split("[")[0].strip()) in page
    # An empty Send: the character speaks again, no line of the player's.
    alice_client.post(form["url"], {**form["fields"], "content": "  ", "action": "send"})
    after = _lines(store, instance)
    assert len(after) == len(lines) + 1 and after[-1]["role"] == "assistant"


def test_regenerate_and_continue_without_a_script(alice_client, store, instance):
    chat_lines_append(store, instance, 1)
    form = _send_form(alice_client, instance)
    assert {("action", "regenerate", False), ("action", "continue", False)} <= set(
        form["buttons"])
    alice_client.post(form["url"], {**form["fields"], "action": "regenerate"})
    last = _lines(store, instance)[-1]
    assert last["content"] != "answer 1"
    assert "answer 1" in [version["content"] for version in last["alternatives"]]
    alice_client.post(form["url"], {**form["fields"], "action": "continue"})
    assert _lines(store, instance)[-1]["content"].startswith(last["content"])
    assert len(_lines(store, instance)[-1]["content"]) > len(last["content"])


def test_a_refused_line_comes_back_in_the_box_in_the_readers_language(
        alice_client, store, instance):
    form = _send_form(alice_client, instance)
    before = _lines(store, instance)
    long_line = "长" * 20_001
    answer = alice_client.post(form["url"], {**form["fields"], "content": long_line,
                                             "action": "send"},
                               HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert answer.status_code == 302 and answer["Location"] == f"/instances/{instance}/"
    assert _lines(store, instance) == before
    page = alice_client.get(answer["Location"], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "消息太长" in page
    again, = [f for f in page_forms(page) if f["url"] == form["url"]]
    assert again["fields"]["content"] == long_line
    # once: the next page's box is empty
    assert _send_form(alice_client, instance)["fields"]["content"] == ""


def test_another_account_cannot_send_into_the_chat(client, bob, store, instance):
    client.force_login(bob)
    answer = client.post(f"/instances/{instance}/send", {"content": "hi", "action": "send"})
    assert answer.status_code == 404 and _lines(store, instance) == []


def test_the_older_lines_are_a_link_and_their_page_links_back_to_the_newest(
        alice_client, store, instance):
    chat_lines_append(store, instance, 30)
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert "question 11</div>" in page and "question 10</div>" not in page  # 40 lines
    assert 'data-testid="newest-link"' not in page
    link = html.unescape(page.split('data-testid="older-link" href="')[1].split('"')[0])
    older = alice_client.get(link).content.decode()
    assert "question 10</div>" in older and "question 11</div>" not in older
    assert f'data-testid="newest-link" href="/instances/{instance}/"' in older


def test_go_to_message_number_without_a_script_opens_its_page_at_it(
        alice_client, store, instance):
    chat_lines_append(store, instance, 30)
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert re.search(rf'data-testid="message-jump" action="/instances/{instance}/"', page)
    answer = alice_client.get(f"/instances/{instance}/", {"index": "3"})
    assert answer["Location"] == f"/instances/{instance}/?before=24#m-3"  # amid its 40 lines
    assert 'id="m-3" data-testid="message"' in alice_client.get(answer["Location"]).content.decode()
    far = alice_client.get(f"/instances/{instance}/", {"index": str(10 ** 30)}, follow=True)
    assert far.status_code == 200 and "answer 30</div>" in far.content.decode()


def test_a_members_answer_now_without_a_script(alice_client, store, group, brenna):
    page = alice_client.get(f"/instances/{group}/").content.decode()
    button = re.search(r'<button type="submit"[^>]*data-trigger-speaker="' + brenna
                       + r'"[^>]*formaction="([^"]+)" name="speaker"', page)
    assert button and button[1] == f"/instances/{group}/send"
    answer = alice_client.post(button[1], {"speaker": brenna})
    last = store.session_read(group, "sess_001").lines[-1]
    assert last["role"] == "assistant" and last["speaker"] == brenna
    assert answer["Location"].endswith(f"#m-{len(store.session_read(group, 'sess_001').lines) - 1}")
    refused = alice_client.post(button[1], {"speaker": "nobody_here"}, follow=True)
    assert "is not a member of this conversation" in refused.content.decode()  # said, no 500


def test_a_tampered_answer_now_is_refused_in_the_readers_language(alice_client, store, group):
    """A speaker that is no id was said in English on a Chinese page."""
    refused = alice_client.post(f"/instances/{group}/send", {"speaker": "../其他"},
                                HTTP_ACCEPT_LANGUAGE="zh-CN", follow=True)
    page = refused.content.decode()
    assert refused.status_code == 200 and "use 1-64 characters" not in page
    assert "发言的角色 &#x27;../其他&#x27; 无效" in page
    assert len(store.session_read(group, "sess_001").lines) == 1


def test_an_enormous_refused_line_comes_back_cut_to_four_times_the_limit(
        alice_client, store, instance, settings):
    """A 2 MB line was kept whole in the login's session and drawn into the page (red team,
    twelfth pass): what comes back is the line up to 4 × the longest message."""
    settings.PERSONALAB_MAX_MESSAGE_CHARS = 50
    form = _send_form(alice_client, instance)
    enormous = "".join(f"{n:07d}" for n in range(300_000))  # 2.1 MB
    answer = alice_client.post(form["url"], {**form["fields"], "content": enormous,
                                             "action": "send"})
    assert answer.status_code == 302 and _lines(store, instance) == []
    kept = alice_client.session["send_draft"]["text"]
    assert kept == enormous[:200]
    page = alice_client.get(answer["Location"]).content.decode()
    assert len(page) < 100_000
    again, = [f for f in page_forms(page) if f["url"] == form["url"]]
    assert again["fields"]["content"] == enormous[:200]
