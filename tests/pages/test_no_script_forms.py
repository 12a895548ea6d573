"""Without JavaScript a message can still be edited, hidden, deleted (and the delete undone),
branched and flipped to another version, and the outline moved and held: the chat page links
each message to a page of forms, the history manager's forms post, and the outline's forms post
to a page route that calls the same services and comes back with what happened."""

from __future__ import annotations

import re

import pytest

from tests.chat.history_files import chat_lines_append
from tests.pages.page_forms import page_forms

pytestmark = pytest.mark.django_db


def _form(html: str, action: str) -> dict:
    found = [f for f in page_forms(html) if f["fields"].get("action") == action]
    assert found, f"no {action} form"
    return found[0]


def _lines(store, instance_id, session="sess_001") -> list[dict]:
    return store.session_read(instance_id, session).lines


def _message_page(client, instance_id, content: str) -> str:
    """The chat page's no-script link of the message `content`, followed."""
    page = client.get(f"/instances/{instance_id}/").content.decode()
    for article in re.findall(r"<article .*?</article>", page, flags=re.S):
        if f">{content}</div>" in article:
            href = re.search(r'data-testid="message-changes" href="([^"]+)"', article)[1]
            return client.get(href).content.decode()
    raise AssertionError(f"no message {content!r} on the chat page")


def test_a_chat_message_without_a_script_is_edited_and_hidden_from_its_page(
        alice_client, store, instance):
    chat_lines_append(store, instance, 2)
    page = _message_page(alice_client, instance, "answer 1")
    edit = _form(page, "edit")
    assert edit["fields"]["text"].strip() == "answer 1" and edit["fields"]["back"] == "chat"
    done = alice_client.post(edit["url"], {**edit["fields"], "text": "answer one, edited"})
    assert done.status_code == 302  # back at the message
    assert done["Location"] == f"/instances/{instance}/#m-{edit['fields']['index']}"
    assert [line["content"] for line in _lines(store, instance)][-3] == "answer one, edited"
    chat = alice_client.get(done["Location"]).content.decode()
    assert "Message edited." in chat and 'data-testid="undo-offer"' in chat
    assert f'id="m-{edit["fields"]["index"]}" data-testid="message"' in chat
    page = _message_page(alice_client, instance, "answer one, edited")
    hide = _form(page, "hide")
    alice_client.post(hide["url"], hide["fields"])
    assert _lines(store, instance)[-3]["hidden"] is True


def test_a_delete_without_a_script_offers_its_undo_once_and_the_undo_restores_it(
        alice_client, store, instance):
    chat_lines_append(store, instance, 2)
    index = [line.get("content") for line in _lines(store, instance)].index("question 2")
    history = alice_client.get(f"/instances/{instance}/history/").content.decode()
    delete = next(f for f in page_forms(history) if f["fields"].get("action") == "delete"
                  and f["fields"]["index"] == str(index))
    assert delete["url"] == f"/instances/{instance}/messages/change"
    done = alice_client.post(delete["url"], delete["fields"])
    assert done["Location"] == (f"/instances/{instance}/history/?session=sess_001&page=1"
                                f"#line-{index}")
    assert "question 2" not in [line.get("content") for line in _lines(store, instance)]
    back = alice_client.get(done["Location"]).content.decode()
    undo = _form(back, "undo")
    assert "Message deleted." in back
    assert 'data-testid="undo-offer"' not in alice_client.get(done["Location"]).content.decode()
    alice_client.post(undo["url"], undo["fields"])
    assert _lines(store, instance)[index]["content"] == "question 2"


def test_a_branch_and_another_version_without_a_script(alice_client, store, instance):
    chat_lines_append(store, instance, 2)
    store.session_append(instance, "sess_001", {
        "role": "assistant", "content": "answer 3", "turn": 3,
        "alternatives": [{"content": "answer 3, first try"}]})
    history = alice_client.get(f"/instances/{instance}/history/").content.decode()
    swipe = _form(history, "swipe")
    (name, value, _), = [b for b in swipe["buttons"] if not b[2]]  # ‹: the newest is shown
    alice_client.post(swipe["url"], {**swipe["fields"], name: value})
    assert _lines(store, instance)[-1]["content"] == "answer 3, first try"
    page = _message_page(alice_client, instance, "answer 1")
    done = alice_client.post(_form(page, "branch")["url"], _form(page, "branch")["fields"])
    assert done["Location"] == f"/instances/{instance}/"
    state = store.instance_state_read(instance)
    assert state["current_session_id"] == "sess_002"
    assert _lines(store, instance, "sess_002")[-1]["content"] == "answer 1"
    assert "conversation 2 starts from here" in alice_client.get(done["Location"]).content.decode()


def test_a_message_page_of_another_account_or_no_message_is_not_found(
        client, bob, alice_client, store, instance):
    chat_lines_append(store, instance, 1)
    assert alice_client.get(f"/instances/{instance}/messages/sess_001/99/").status_code == 404
    client.force_login(bob)
    assert client.get(f"/instances/{instance}/messages/sess_001/1/").status_code == 404
    assert client.post(f"/instances/{instance}/messages/change",
                       {"action": "delete", "session": "sess_001", "index": "1"}
                       ).status_code == 404


def test_the_outline_is_moved_and_held_without_a_script(alice_client, store, instance):
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    outline = page[page.index('id="outline"'):]
    done = next(f for f in page_forms(outline) if f["fields"].get("status") == "completed")
    answer = alice_client.post(done["url"], done["fields"])
    assert answer.status_code == 302 and answer["Location"] == f"/instances/{instance}/#drawer"
    assert store.instance_state_read(instance)["plot_state"]["current_status"] == "completed"
    assert "Point 1 is done." in alice_client.get(answer["Location"]).content.decode()
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    hold = next(f for f in page_forms(page) if "hold" in f["fields"])
    assert hold["fields"]["hold"] == "1"
    alice_client.post(hold["url"], hold["fields"])
    assert store.instance_state_read(instance)["plot_hold"] is True
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert "This beat is held" in page
    release = next(f for f in page_forms(page) if "hold" in f["fields"])
    alice_client.post(release["url"], release["fields"])
    assert store.instance_state_read(instance)["plot_hold"] is False


def test_a_no_script_form_echoes_no_field_as_it_came(alice_client, store, instance):
    """The page a change goes back to and its Undo offer hold only a position, a page number
    and a search of the history page's size: a field of any length went into the redirect and
    the session as sent (red team, eleventh pass)."""
    chat_lines_append(store, instance, 2)
    history = alice_client.get(f"/instances/{instance}/history/").content.decode()
    delete = next(f for f in page_forms(history) if f["fields"].get("action") == "delete")
    refused = alice_client.post(delete["url"], {**delete["fields"], "index": "1" * 5000})
    assert refused["Location"] == f"/instances/{instance}/history/?session=sess_001&page=1"
    done = alice_client.post(delete["url"], {**delete["fields"], "back": "history",
                                             "page": "2" * 3000, "q": "q" * 100_000})
    assert done["Location"] == (f"/instances/{instance}/history/?session=sess_001"
                                f"#line-{delete['fields']['index']}")
    history = alice_client.get(done["Location"]).content.decode()
    delete = next(f for f in page_forms(history) if f["fields"].get("action") == "delete")
    alice_client.post(delete["url"], {**delete["fields"], "back": "x" * 100_000})
    assert alice_client.session["undo_offer"]["back"] == "chat"


def test_an_edit_refused_without_a_script_keeps_what_was_typed(alice_client, store, instance):
    """The message changed since its page was shown (a version flipped in another tab): the
    redirect back lost the text typed (red team, eleventh pass)."""
    chat_lines_append(store, instance, 2)
    page = _message_page(alice_client, instance, "answer 1")
    edit = _form(page, "edit")
    history = alice_client.get(f"/instances/{instance}/history/").content.decode()
    hide = next(f for f in page_forms(history) if f["fields"].get("action") == "hide"
                and f["fields"]["index"] == edit["fields"]["index"])
    alice_client.post(hide["url"], hide["fields"])  # the line changed meanwhile
    refused = alice_client.post(edit["url"], {**edit["fields"], "text": "my <long> rewrite"})
    assert refused.status_code == 409
    again = refused.content.decode()
    assert "the session changed since this page was loaded" in again
    assert "my &lt;long&gt; rewrite</textarea>" in again  # data, escaped
    assert _form(again, "edit")["fields"]["text"] == "my <long> rewrite"
    done = alice_client.post(edit["url"], _form(again, "edit")["fields"] | {
        "text": "my <long> rewrite"})
    assert done.status_code == 302
    assert _lines(store, instance)[int(edit["fields"]["index"])]["content"] == "my <long> rewrite"


def test_an_enormous_refused_edit_comes_back_cut_to_four_times_the_limit(
        alice_client, store, instance, settings):
    """A 2 MB edit was drawn back whole into the page (red team, twelfth pass)."""
    settings.PERSONALAB_MAX_MESSAGE_CHARS = 10
    chat_lines_append(store, instance, 2)
    edit = _form(_message_page(alice_client, instance, "answer 1"), "edit")
    refused = alice_client.post(edit["url"], {**edit["fields"], "text": "x" * 2_000_000})
    assert refused.status_code == 413
    assert _form(refused.content.decode(), "edit")["fields"]["text"] == "x" * 40
    assert len(refused.content) < 100_000
