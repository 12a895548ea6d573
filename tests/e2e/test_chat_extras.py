"""More of the chat page in a real browser, at phone (390×844) and laptop (1366×900) size:
hiding a message from the model, the model's reasoning folded while it streams (also when it
comes in the middle of the reply), the settings page's "Test connection" against the stub's
/v1/models, and a conversation with two characters whose bubbles each carry their speaker's name
and picture. Screenshots go to tests/e2e/screenshots/. (A lorebook ticked in the chat drawer:
tests/e2e/test_lorebook_ticks.py in the browser, tests/chat/test_instance_lorebooks.py for what
the server keeps and sends.)

One Daphne server and one Chromium for the module (the `server` fixture skips every test when
Chromium or Playwright is missing); each test starts its own instance."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    PHONE,
    SIZES,
    Server,
    instance_new,
    message_act,
    message_send,
    no_sideways_scroll,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.e2e.page_api import api_call, drawer_open, members_card_open
from tests.png_files import tiny_png
from tests.stub_llm import Reply, refused_url

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _sent(server: Server) -> str:
    return json.dumps(server.stub.requests[-1]["messages"], ensure_ascii=False)


def _group_open(page: Page, server: Server, *, character_id: str, name: str, persona: str,
                order: str, avatar: bool = False) -> str:
    """A new character beside Alserqi in a conversation answered in `order`, its page open;
    the instance id."""
    api_call(page, server, "POST", "/characters", {
        "character_id": character_id, "name": name, "base_persona": persona})
    if avatar:
        (server.store.character_dir(character_id) / "avatar.png").write_bytes(tiny_png())
    created = api_call(page, server, "POST", "/instances", {
        "character_ids": ["char_alserqi", character_id], "reply_order": order,
        "background_id": "bg_wasteland"})
    page.goto(f"{server.url}/instances/{created['instance_id']}/")
    return created["instance_id"]


@SIZES
def test_a_hidden_message_stays_dimmed_on_the_page_and_is_not_sent(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    instance_id = instance_new(page, server)
    server.stub.script(Reply("Your secret is safe."), Reply("Cold tea, then."))
    message_send(page, "My password is swordfish.")
    turn_wait_done(page)
    user = page.locator("[data-testid=message][data-role=user]").last
    control = user.locator("[data-testid=more]" if size is PHONE else "[data-testid=hide]")
    box = control.bounding_box()
    assert box["width"] >= 24 and box["x"] + box["width"] <= size["width"]
    message_act(user, "hide")
    page.wait_for_selector("[data-testid=message][data-role=user].hidden-from-model")
    user = page.locator("[data-testid=message][data-role=user]").last
    assert "swordfish" in user.locator(".text").inner_text()  # still on the page
    assert user.locator(".tag", has_text="hidden from the model").is_visible()
    # dimmed: drawn in the muted colour (readable at 4.5:1), not the text colour of the others
    colours = user.locator(".text p").evaluate(
        "p => [getComputedStyle(p).color, getComputedStyle(document.body).color]")
    assert colours[0] != colours[1], colours
    assert server.session_lines(instance_id)[-2]["hidden"] is True
    no_sideways_scroll(page)
    screenshot_take(page, f"40_hidden_message_{size['width']}", full_page=False)

    message_send(page, "Any tea left?")
    turn_wait_done(page)
    assert "swordfish" not in _sent(server) and "Your secret is safe." in _sent(server)

    message_act(page.locator("[data-testid=message][data-role=user]").first, "hide")
    wait_until(page, "() => !document.querySelector('.msg.hidden-from-model')")
    assert "hidden" not in server.session_lines(instance_id)[-4]
    assert page.js_errors == []


LEAK_WATCH = """() => {
  window.__shown = [];
  const box = document.getElementById('messages');
  new MutationObserver(() => {
    for (const t of box.querySelectorAll('.msg.assistant .text')) {
      window.__shown.push(t.textContent);
    }
  }).observe(box, {childList: true, subtree: true, characterData: true});
}"""


def test_reasoning_shows_folded_while_the_reply_streams(page: Page, server: Server) -> None:
    """On a phone: the fold (.reasoning) has no width rule, and nothing here depends on one."""
    page.set_viewport_size(PHONE)
    instance_new(page, server)
    reply = "".join(f"Step {n}: the caravan moves on. " for n in range(1, 25))
    thought = "Weigh the offer before answering; stay in character."
    # Streamed in pieces of four, the reasoning first; held after two pieces of the reply until
    # the fold has been looked at and opened (tests/stub_llm.py).
    server.stub.script(Reply(reply, chunk_size=4, reasoning=thought,
                             held_after=len(range(0, len(thought), 4)) + 2))
    page.evaluate(LEAK_WATCH)
    message_send(page, "Do we take the offer?")
    fold = page.locator("[data-testid=reasoning-live]")
    fold.wait_for(state="attached")
    wait_until(page,
        "() => { const f = document.querySelector('[data-testid=reasoning-live]');"
        " return f && f.textContent.includes('stay in character'); }")
    assert page.locator("#messages .msg.assistant.pending").count() == 1  # still streaming
    assert fold.evaluate("el => el.open") is False  # folded
    assert fold.locator("summary").is_visible()
    screenshot_take(page, "42_reasoning_live_390", full_page=False)
    fold.locator("summary").click()
    assert fold.evaluate("el => el.open") is True
    server.stub.release()
    turn_wait_done(page)
    last = page.locator("[data-testid=message][data-role=assistant]").last
    stored = last.locator("[data-testid=reasoning]")
    assert stored.evaluate("el => el.open") is False
    assert "stay in character" in stored.text_content()
    assert "stay in character" not in last.locator(".text").inner_text()
    assert not any("stay in character" in text for text in page.evaluate("window.__shown"))
    assert page.js_errors == []


def test_a_think_block_in_the_middle_of_a_reply_never_shows_as_text(page: Page,
                                                                      server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = instance_new(page, server)
    pieces = ["She listens. ", "<thi", "nk>Is he lying", " about the map?</th", "ink> ",
              *[f"She nods {n}. " for n in range(1, 30)]]
    server.stub.script(Reply("", deltas=tuple(("content", p) for p in pieces), delay=0.05))
    page.evaluate(LEAK_WATCH)
    message_send(page, "I found the map.")
    wait_until(page,
        "() => { const f = document.querySelector('[data-testid=reasoning-live]');"
        " return f && f.textContent.includes('about the map'); }")
    assert page.locator("#messages .msg.assistant.pending").count() == 1
    screenshot_take(page, "43_think_mid_reply_390", full_page=False)
    turn_wait_done(page)
    shown = page.evaluate("window.__shown")
    assert shown and not any("lying" in text or "think>" in text for text in shown)
    line = server.session_lines(instance_id)[-1]
    assert line["reasoning"] == "Is he lying about the map?"
    assert line["content"].startswith("She listens. She nods 1.")
    last = page.locator("[data-testid=message][data-role=assistant]").last
    assert "lying" in last.locator("[data-testid=reasoning]").text_content()
    assert page.js_errors == []


@SIZES
def test_test_connection_lists_the_servers_models_to_pick_from(page: Page, server: Server,
                                                               size: dict) -> None:
    page.set_viewport_size(size)
    page.goto(f"{server.url}/settings/")
    page.fill("input[name='llm.base_url']", refused_url())
    page.click("[data-testid=llm-test]")
    error = page.locator("[data-testid=llm-test-error]")
    error.wait_for()
    assert "Connection failed" in error.inner_text() and "{" not in error.inner_text()

    # A save that failed leaves its sentence under the field; a good test afterwards clears it.
    page.fill("input[name='llm.base_url']", "ftp://nowhere.example")
    page.click("#settings-form button[type=submit]:not([name])")
    page.locator(".field-error[data-field='llm.base_url']").wait_for()

    page.fill("input[name='llm.base_url']", server.stub.base_url)
    page.fill("input[name='llm.model']", "")
    page.click("[data-testid=llm-test]")
    models = page.locator("[data-testid=llm-test-models]")
    models.wait_for()
    assert "1 model" in models.inner_text()
    # A server with one model fills the field at once (when htmx has settled the answer);
    # picking still works.
    wait_until(page,
        "() => document.querySelector(\"input[name='llm.model']\").value === 'stub-model'",
        timeout=5000)
    assert page.locator(".field-error[data-field='llm.base_url']").count() == 0
    page.fill("input[name='llm.model']", "")
    page.select_option("[data-testid=llm-model-pick]", "")
    page.select_option("[data-testid=llm-model-pick]", "stub-model")
    assert page.input_value("input[name='llm.model']") == "stub-model"
    no_sideways_scroll(page)
    models.scroll_into_view_if_needed()
    screenshot_take(page, f"44_test_connection_{size['width']}", full_page=False)
    assert page.js_errors == []


@SIZES
def test_two_characters_each_have_their_name_and_picture_on_their_bubbles(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    character_id = f"char_bram{size['width']}"
    instance_id = _group_open(page, server, character_id=character_id, name="Bram",
                              persona="A gruff smith.", order="everyone", avatar=True)
    server.stub.script(Reply("Alserqi looks up from the map."), Reply("Bram grunts."))
    message_send(page, "Good evening, both of you.")
    wait_until(page,
        "() => [...document.querySelectorAll('#messages .msg.assistant .who')]"
        ".some(w => w.textContent.includes('Bram'))")
    turn_wait_done(page)
    replies = page.locator("[data-testid=message][data-role=assistant]")
    bubbles = {replies.nth(i).locator(".text").inner_text(): replies.nth(i)
               for i in range(replies.count())}
    alserqi, bram = bubbles["Alserqi looks up from the map."], bubbles["Bram grunts."]
    alserqi_name = server.store.character_read("char_alserqi")["name"]
    assert alserqi.locator(".who strong").inner_text() == alserqi_name
    assert bram.locator(".who strong").inner_text() == "Bram"
    assert bram.locator("img.avatar").get_attribute("src") == \
        f"/library/characters/{character_id}/avatar.png"
    assert bram.locator("img.avatar").evaluate(  # the picture loads (it was a 500 before)
        "img => img.decode().then(() => img.naturalWidth, () => fetch(img.src).then("
        "r => `broken: ${r.status}`))") == 1
    assert alserqi.locator(".avatar.initials").inner_text() == alserqi_name[:1].upper()
    # A bubble the page writes itself letters a name by its first character that shows: a
    # leading U+202E (or space) left the circle empty.
    assert page.evaluate("""async () => {
        const main = [...document.scripts].find(s => s.src.includes('/chat/main'));
        const messages = await import(new URL('messages.js', main.src).href);
        const article = messages.addMessage('assistant', '', '\\u202e Mira', null, '')
            .closest('article');
        article.remove();
        return article.querySelector('.avatar.initials').textContent;
    }""") == "M"
    speakers = [line.get("speaker") for line in server.session_lines(instance_id)
                if line.get("role") == "assistant"][-2:]
    assert speakers == ["char_alserqi", character_id]
    no_sideways_scroll(page)
    screenshot_take(page, f"45_two_characters_{size['width']}", full_page=False)
    assert page.js_errors == []



def test_a_group_round_streams_into_named_bubbles_with_no_empty_placeholder(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    _group_open(page, server, character_id="char_tamsin", name="Tamsin",
                persona="A quiet archer.", order="everyone")
    server.stub.script(Reply("Alserqi nods.", chunk_size=2, delay=0.02),
                       Reply("Tamsin draws an arrow slowly, " * 3, chunk_size=2, delay=0.05))
    message_send(page, "Who keeps watch tonight?")
    wait_until(page, "() => [...document.querySelectorAll('#messages .msg.pending .text')]"
               ".some(t => t.textContent.includes('Tamsin draws'))")
    live = page.locator("#messages .msg.pending[data-role=assistant]")
    labels = [live.nth(i).locator(".who").inner_text() for i in range(live.count())]
    alserqi_name = server.store.character_read("char_alserqi")["name"]
    assert labels == [alserqi_name, "Tamsin"]  # was ["…", alserqi_name, "Tamsin"], the first empty
    turn_wait_done(page)
    assert page.js_errors == []


def test_a_tab_opened_mid_reply_shows_the_reasoning_so_far_folded(
        page: Page, logged_in: BrowserContext, server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = instance_new(page, server)
    deltas = (("content", "She opens the gate. "), ("reasoning", "Is he armed? "),
              *(("content", f"Step {n}. ") for n in range(1, 40)),
              ("reasoning", "He is not."), *(("content", f"Then {n}. ") for n in range(1, 40)))
    # Held after the first reasoning and a few steps until the second tab has opened.
    server.stub.script(Reply("", deltas=deltas, delay=0.01, held_after=5))
    message_send(page, "Open up.")
    wait_until(page,
        "() => { const f = document.querySelector('[data-testid=reasoning-live]');"
        " return f && f.textContent.includes('armed'); }")
    watcher = logged_in.new_page()
    watcher.set_viewport_size(PHONE)
    errors: list[str] = []
    watcher.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        watcher.goto(f"{server.url}/instances/{instance_id}/")
        fold = watcher.locator("#streaming-line [data-testid=reasoning-live]")
        assert fold.count() == 1 and fold.evaluate("el => el.open") is False
        assert "Is he armed?" in fold.text_content()
        assert "armed" not in watcher.locator("#streaming-line .text").inner_text()
        server.stub.release()
        wait_until(watcher,
            "() => [...document.querySelectorAll('[data-testid=reasoning-live]')]"
            ".some(f => f.textContent.includes('He is not.'))", timeout=30_000)
        assert watcher.locator("[data-testid=reasoning-live]").count() == 1  # one fold, not two
        screenshot_take(watcher, "46_second_tab_reasoning_390", full_page=False)
        wait_until(watcher, "() => !document.querySelector('.msg.pending')"
                   " && !document.getElementById('streaming-line')",
                                  timeout=60_000)
        last = watcher.locator("[data-testid=message][data-role=assistant]").last
        assert last.locator("[data-testid=reasoning]").text_content().strip().endswith("He is not.")
        assert errors == []
    finally:
        watcher.close()
    turn_wait_done(page)
    assert server.session_lines(instance_id)[-1]["reasoning"] == "Is he armed? He is not."
    assert page.js_errors == []


@SIZES
def test_answer_now_makes_the_chosen_character_answer(page: Page, server: Server,
                                                      size: dict) -> None:
    page.set_viewport_size(size)
    character_id = f"char_wren{size['width']}"
    instance_id = _group_open(page, server, character_id=character_id, name="Wren",
                              persona="A quiet scout.", order="list")
    server.stub.script(Reply("Wren nods from the doorway."))
    members_card_open(page)
    page.locator(f"[data-member={character_id}] [data-testid=trigger]").click()
    wait_until(page,
        "() => [...document.querySelectorAll('#messages .msg.assistant .text')]"
        ".some(t => t.textContent.includes('Wren nods'))")
    turn_wait_done(page)
    last = [line for line in server.session_lines(instance_id) if line.get("role") == "assistant"]
    assert last[-1]["speaker"] == character_id and last[-1]["content"] == "Wren nods from the doorway."
    assert [line for line in server.session_lines(instance_id) if line.get("role") == "user"] == []
    screenshot_take(page, f"48_answer_now_{size['width']}", full_page=False)
    assert page.js_errors == []


def test_a_message_nobody_answers_in_manual_order_says_how_to_pick_who_speaks(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    instance_id = _group_open(page, server, character_id="char_pell", name="Pell",
                              persona="A ferryman.", order="manual")
    replies = page.locator("#messages .msg.assistant").count()  # the greeting
    message_send(page, "Anyone there?")
    turn_wait_done(page)
    # Before, the message was kept and nothing else happened: no reply, no word why.
    hint = page.locator("#status")
    assert "Answer now" in hint.inner_text() and "manual" in hint.inner_text()
    roles = [line["role"] for line in server.session_lines(instance_id) if line.get("role")]
    assert roles[-1] == "user" and roles.count("assistant") == replies
    assert page.locator("#messages .msg.assistant").count() == replies
    screenshot_take(page, "49_manual_order_hint_390", full_page=False)
    assert page.js_errors == []


def test_a_notes_saved_word_goes_once_a_field_changes_again(page: Page, server: Server) -> None:
    """"Saved." stayed beside the author's note while a depth of 99, which the browser refuses
    to send, sat in its field."""
    instance_new(page, server)
    drawer_open(page)
    card = page.locator("#authors-note-card")
    card.scroll_into_view_if_needed()
    card.locator("textarea[name=text]").fill("Keep it rainy.")
    card.locator("button[type=submit]").click()
    saved = page.locator("#authors-note-card [data-saved]")
    saved.wait_for(state="visible")
    page.locator("#authors-note-card input[name=depth]").fill("99")
    assert saved.is_hidden()
    assert page.js_errors == []
