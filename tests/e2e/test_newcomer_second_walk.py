"""What a newcomer's second walk through an evening and an author's hour still met (issue 33,
round 12): a member who left a group kept its lines but they spoke in another's name; reloading
the chat import's check page showed a blank page. Screenshots go to tests/e2e/screenshots/."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    SCHEMES,
    Server,
    browser_missing_reason,
    csrf_token,
    message_act,
    message_send,
    phone_page_open,
    scheme_emulate,
    screenshot_take,
    turn_wait_done,
    wait_until,
)
from tests.e2e.test_accessibility import AXE
from tests.e2e.test_chat_extras import _api, _drawer_open
from tests.library.test_cards import tiny_png
from tests.stub_llm import Reply

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _character(page: Page, server: Server, name: str) -> str:
    return _api(page, server, "POST", "/characters", {
        "name": name, "base_persona": f"{name} keeps the inn.",
        "greeting": "*{{char}} waves.* I am {{char}}."})["character_id"]


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_member_who_left_the_story_still_greets_under_its_own_name(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    tag = f"L{size['width']}"
    names = [f"{name}{tag}" for name in ("Ann", "Bob", "Cy")]
    ids = [_character(page, server, name) for name in names]
    picture = page.request.post(f"{server.url}/api/v1/characters/{ids[2]}/avatar", multipart={
        "file": {"name": "cy.png", "mimeType": "image/png", "buffer": tiny_png()}},
        headers={"X-CSRFToken": csrf_token(page, server)})
    assert picture.ok, picture.text()
    instance_id = _api(page, server, "POST", "/instances", {"character_ids": ids})["instance_id"]
    page.goto(f"{server.url}/instances/{instance_id}/")
    toggle = page.get_by_test_id("drawer-toggle")
    if toggle.is_visible():
        toggle.click()
    card = page.get_by_test_id("members-card")
    card.locator("summary").click()
    card.locator(f"li[data-member='{ids[2]}'] button[value=remove]").focus()
    page.keyboard.press("Enter")
    page.locator(f"#members-card li[data-member='{ids[2]}']").wait_for(state="detached")
    # The keyboard's place: the picker the member can be added back from, not the page's top.
    wait_until(page, "() => document.activeElement.id === 'member-add'", timeout=15_000)
    page.reload()
    greetings = page.locator("[data-testid=message][data-role=assistant]").all_inner_texts()
    screenshot_take(page, f"w12_member_left_{tag}", full_page=False)
    for name in names:
        assert sum(f"I am {name}." in text for text in greetings) == 1, greetings
    # and with its picture
    assert page.locator("[data-testid=message][data-role=assistant]", has_text=f"I am {names[2]}.")\
        .locator("img.avatar").count() == 1
    assert page.js_errors == []


@pytest.mark.parametrize("path", ["/chats/import", "/chats/import/cancel"])
def test_a_reloaded_import_check_page_says_what_to_do(page: Page, server: Server,
                                                        path: str) -> None:
    """A phone's browser restoring the tab of the check page (an answer to a POST) asks for
    it again with a GET: the player lands on the library's chat import, open, told why."""
    page.set_viewport_size(PHONE)
    _character(page, server, "Dora")  # the library offers a chat import once it has a character
    page.goto(f"{server.url}{path}")
    assert page.url.split("?")[0].endswith("/library/")
    assert page.get_by_text("choose the chat file again").is_visible()
    assert page.get_by_test_id("chat-import-box").get_attribute("open") is not None
    assert page.locator("#library-chat-import input[type=file]").is_visible()
    screenshot_take(page, "w12_import_reloaded", full_page=False)
    assert page.js_errors == []


# Sentences a 中文 player met in English (round 12's walk), by the page that shows them.
LEFT_IN_ENGLISH = {
    "chat": ["Context size (tokens, reply included)", "Memory share of the window",
             "model's, or 16384", "Reset to my default blocks", "group_nudge"],
    "/library/regex-scripts/": ["They run in every chat of yours", "Scripts (JSON list"],
    "/settings/": ["Prompt post-processing, chat completion only"],
    "/chats/import": ["choose the chat file again"],
}


def test_a_chinese_player_reads_the_chat_drawer_and_the_regex_and_settings_pages_in_chinese(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": server.url}])
    try:
        ids = [_character(page, server, name) for name in ("Eli", "Fay")]
        instance_id = _api(page, server, "POST", "/instances",
                           {"character_ids": ids})["instance_id"]
        server.stub.script(Reply("Hello."), Reply("Hi."))
        page.goto(f"{server.url}/instances/{instance_id}/")
        message_send(page, "你好")
        turn_wait_done(page)
        page.locator("#budget small").wait_for(state="attached")  # folded away while typing
        # the prompt's size as the inspector says it, its digits grouped: "1,234 / 16,384 个 token"
        assert re.fullmatch(r"[\d,]+ / \d{1,3}(,\d{3})+ 个 token",
                            page.locator("#budget small").text_content().strip())
        _drawer_open(page)
        for fold in page.locator("#drawer details").all():
            fold.evaluate("d => d.open = true")
        shown = {"chat": page.locator("body").inner_text() + " ".join(
            page.locator("[title], [placeholder]").evaluate_all(
                "els => els.map(e => (e.title || '') + ' ' + (e.placeholder || ''))"))}
        screenshot_take(page, "w12_zh_drawer", full_page=False)
        for path in [p for p in LEFT_IN_ENGLISH if p.startswith("/")]:
            page.goto(f"{server.url}{path}")
            shown[path] = page.locator("body").inner_text()
        left = {where: [s for s in sentences if s in shown[where]]
                for where, sentences in LEFT_IN_ENGLISH.items()}
        assert left == {where: [] for where in LEFT_IN_ENGLISH}
        assert "请重新选择聊天文件" in shown["/chats/import"]
    finally:
        page.context.clear_cookies(name="django_language")
    assert page.js_errors == []


CONTRAST = """async () => (await axe.run(document, {runOnly: ["color-contrast"]})).violations
  .flatMap((v) => v.nodes.map((n) => n.target.join(" ") + " :: " + n.failureSummary))"""


def test_a_hidden_message_stays_readable_in_the_chat_and_the_history(
        page: Page, server: Server) -> None:
    """Hidden lines are dimmed, and were dimmed to 3.2:1 (light) / 4.4:1 (dark) in the
    history: still dimmed, now with the muted text colour every palette keeps at 4.5:1. Each
    page is read in both schemes (its colours follow the scheme live)."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(PHONE)
    instance_id = _api(page, server, "POST", "/instances",
                       {"character_id": _character(page, server, "Gil")})["instance_id"]
    server.stub.script(Reply("A plain answer, *with a gesture*, and more words."))
    page.goto(f"{server.url}/instances/{instance_id}/")
    message_send(page, "Tell me something.")
    turn_wait_done(page)
    for role in ("user", "assistant"):
        message_act(page.locator(f"#messages .msg.{role}").last, "hide")
    page.locator("#messages .msg.hidden-from-model").nth(1).wait_for()
    found = {}
    for scheme in SCHEMES:
        scheme_emulate(page, scheme)
        found[f"chat {scheme}"] = page.evaluate(CONTRAST)
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    page.locator(".history-row.hidden-from-model").nth(1).wait_for()
    for scheme in SCHEMES:
        scheme_emulate(page, scheme)
        found[f"history {scheme}"] = page.evaluate(CONTRAST)
        screenshot_take(page, f"w12_hidden_history_{scheme}", full_page=False)
    assert found == {f"{where} {scheme}": [] for where in ("chat", "history")
                     for scheme in SCHEMES}


@pytest.fixture
def thumb(server: Server) -> Iterator[Page]:
    """A logged-in phone page with a touch screen (a context of its own)."""
    yield from phone_page_open(server)


def _box(locator) -> tuple[int, int]:
    box = locator.bounding_box()
    return round(box["width"]), round(box["height"])


def test_the_controls_of_an_evening_are_big_enough_for_a_thumb(thumb: Page, server: Server) -> None:
    """The swipe arrows, the Undo of a deletion and the folded header's ≡ and ☰ were 24–31 px
    tall on a touch screen: each is now at least 44 × 44 px."""
    page = thumb
    instance_id = _api(page, server, "POST", "/instances",
                       {"character_id": _character(page, server, "Hal")})["instance_id"]
    server.stub.script(Reply("First answer."), Reply("Second answer."))
    page.goto(f"{server.url}/instances/{instance_id}/")
    # the header's links, while reading (typing folds the header and hides them)
    links = {name: _box(page.locator(".chat-title small a", has_text=name))
             for name in ("History", "Persona & memory")}
    for text in ("One.", "Two."):  # on a touch screen Enter is a new line: Send sends
        page.locator("[data-testid=input]").fill(text)
        page.get_by_test_id("send").click()
        page.locator("#messages .msg.user", has_text=text).wait_for()
        turn_wait_done(page)
    # a message's ⋯ (drawn 36 px tall in the name's line) answers a tap over 44 px
    more = page.locator("#messages .msg").last.get_by_test_id("more")
    box = more.bounding_box()
    reach = page.evaluate("""([x, top, bottom]) => [top - 3, bottom + 3].map((y) =>
      document.elementFromPoint(x, y)?.closest('[data-testid=more]') !== null)""",
                          [box["x"] + box["width"] / 2, box["y"], box["y"] + box["height"]])
    sizes = {"⋯": (round(box["width"]), round(box["height"]) + 8 if all(reach) else 0),
             "‹": _box(page.get_by_test_id("swipe-prev").last),
             "›": _box(page.get_by_test_id("swipe-next").last), **links}
    page.locator("[data-testid=input]").fill("a line being typed")
    wait_until(page, "() => document.body.classList.contains('folded')")
    sizes["≡"] = _box(page.locator(".nav-menu"))
    sizes["☰"] = _box(page.get_by_test_id("drawer-toggle"))
    message_act(page.locator("#messages .msg.user").first, "delete")
    sizes["Undo"] = _box(page.get_by_test_id("undo"))
    screenshot_take(page, "w12_thumb_controls", full_page=False)
    assert {name: size for name, size in sizes.items() if min(size) < 44} == {}
    assert page.js_errors == []


def test_the_chat_drawers_folds_open_from_a_thumb_sized_heading(thumb: Page, server: Server) -> None:
    page = thumb
    instance_id = _api(page, server, "POST", "/instances",
                       {"character_id": _character(page, server, "Ida")})["instance_id"]
    page.goto(f"{server.url}/instances/{instance_id}/")
    _drawer_open(page)
    folds = page.locator("#drawer details.card > summary, #drawer .instance-manage > summary")
    shut = folds.evaluate_all("els => els.map(e => e.closest('details').getBoundingClientRect().height)")
    sizes = {text.strip(): _box(fold) for text, fold in zip(folds.all_inner_texts(), folds.all())}
    assert len(sizes) >= 4
    assert {text: size for text, size in sizes.items() if size[1] < 44} == {}
    folds.first.click()  # a tap on the heading opens it
    assert folds.first.evaluate("s => s.closest('details').open")
    screenshot_take(page, "w12_drawer_folds", full_page=False)
    # the cards are drawn as before: a shut one is its heading's line and its padding
    assert max(shut) < 60, shut


@pytest.mark.parametrize("language,words", [
    ("en", "To make a character with this picture, press “+ New character”"),
    ("zh-hans", "要用这张图片做角色，请点“+ 新角色”")])
def test_a_picture_imported_as_a_card_says_how_to_make_a_character_of_it(
        page: Page, server: Server, tmp_path, language: str, words: str) -> None:
    """A newcomer's first try: a plain picture dropped on "Import a character card"."""
    page.set_viewport_size(PHONE)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server.url}])
    picture = tmp_path / "my hero.png"
    picture.write_bytes(tiny_png())
    try:
        page.goto(f"{server.url}/library/")
        page.locator("input[name=file][accept*=png]").first.set_input_files(str(picture))
        with page.expect_navigation():
            page.locator("input[name=file][accept*=png]").first.locator(
                "xpath=ancestor::form").locator("button[type=submit]").click()
        assert words in page.locator("body").inner_text(), page.locator("body").inner_text()[:600]
        assert "text chunk" not in page.locator("main").inner_text()
        screenshot_take(page, f"w12_picture_not_card_{language}", full_page=False)
    finally:
        page.context.clear_cookies(name="django_language")


def test_a_file_that_is_no_chat_says_which_files_are(page: Page, server: Server, tmp_path) -> None:
    page.set_viewport_size(PHONE)
    _character(page, server, "Jo")
    wrong = tmp_path / "notes.jsonl"
    wrong.write_text("my shopping list\n")
    page.goto(f"{server.url}/library/")
    page.get_by_test_id("chat-import-box").locator("summary").click()
    page.locator("#library-chat-import input[type=file]").set_input_files(str(wrong))
    with page.expect_navigation():
        page.locator("#library-chat-import button[type=submit]").click()
    assert "Choose a chat exported by SillyTavern (.jsonl), Agnai or RisuAI (.json)." in \
        page.locator("body").inner_text()
    screenshot_take(page, "w12_not_a_chat", full_page=False)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_saving_a_character_far_down_its_editor_keeps_the_authors_place(
        page: Page, server: Server, size: dict) -> None:
    """The page reloads on Save: it came back at its top, the field just edited ~1,000 px
    below. Now the field is where it was on the screen (the fold it is in stays open)."""
    page.set_viewport_size(size)
    character_id = _character(page, server, f"Kit{size['width']}")
    page.goto(f"{server.url}/library/characters/{character_id}/")
    page.locator("details[data-section] > summary", has_text="Advanced").click()
    field = page.locator("textarea[name=post_history_instructions]")
    field.scroll_into_view_if_needed()
    field.fill("Stay in character, always.")
    before = field.bounding_box()["y"]
    with page.expect_navigation():
        field.evaluate("f => f.form.requestSubmit()")
    page.wait_for_load_state("load")
    saved = page.get_by_text("Character saved.")
    assert saved.count() == 1
    field = page.locator("textarea[name=post_history_instructions]")
    note = saved.bounding_box()  # the note is in sight, over the page, though its place is up top
    assert 0 <= note["y"] and note["y"] + note["height"] <= size["height"], note
    assert field.input_value() == "Stay in character, always."
    after = field.bounding_box()["y"]
    screenshot_take(page, f"w12_character_place_{size['width']}", full_page=False)
    assert page.evaluate("scrollY") > 0 and abs(after - before) < 30, (before, after)
