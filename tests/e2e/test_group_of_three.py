"""An author's group of three, by names and pictures only: started from the home page, each
member greeting as itself, a member moved down the list, muted and removed, the reply order
changed, at phone and laptop width; a member removed from a group still greets under its own
name and picture."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.e2e.axe_audit import AXE
from tests.e2e.axe_audit import RUN as AXE_RUN
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    SIZES,
    Server,
    csrf_token,
    no_sideways_scroll,
    screenshot_take,
    wait_until,
)
from tests.e2e.page_api import api_call, character_make, members_card_open
from tests.png_files import tiny_png

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


@SIZES
def test_a_group_of_three_is_made_and_changed_by_names_and_pictures(
        page: Page, server: Server, size: dict) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    tag = str(size["width"])
    ann, bob, cy = (character_make(page, server, f"{name}{tag}") for name in ("Ann", "Bob", "Cy"))
    (server.store.character_dir(bob) / "avatar.png").write_bytes(tiny_png())
    page.goto(f"{server.url}/")
    form = page.get_by_test_id("start-group")
    for character_id in (ann, bob, cy):
        form.locator(f"input[name=character_ids][value={character_id}]").check()
    form.locator("select[name=reply_order]").select_option("list")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
    instance_id = page.url.rstrip("/").rsplit("/", 1)[-1]

    # Each member greets under its own name.
    greetings = page.locator("[data-testid=message][data-role=assistant]").all_inner_texts()
    for name in (f"Ann{tag}", f"Bob{tag}", f"Cy{tag}"):
        assert sum(f"I am {name}." in text for text in greetings) == 1, greetings

    card = members_card_open(page)
    rows = card.locator("ul.members > li")
    assert rows.count() == 3
    # Names and pictures, never an id.
    assert card.locator(f"li[data-member={bob}] img.avatar").get_attribute("src") == (
        f"/library/characters/{bob}/avatar.png")
    assert card.locator(f"li[data-member={ann}] .avatar.initials").inner_text() == "A"
    for character_id in (ann, bob, cy):
        assert character_id not in card.inner_text()

    # Bob moves below Cy: the list order (who answers in "list order") follows.
    card.locator(f"li[data-member={bob}]").get_by_test_id("member-down").click()
    wait_until(page,
        "ids => [...document.querySelectorAll('#members-card ul.members > li')]"
        ".map((li) => li.dataset.member).join() === ids", arg=f"{ann},{cy},{bob}")
    state = server.instance_state(instance_id)
    assert [p["character_id"] for p in state["participants"]] == [ann, cy, bob]

    # Cy is muted, then Bob leaves; the title follows.
    card = page.get_by_test_id("members-card")
    card.locator(f"li[data-member={cy}] input[name=muted]").check()  # saved as it is ticked
    page.wait_for_selector(f"#members-card li[data-member={cy}] input[name=muted][checked]")
    card = page.get_by_test_id("members-card")
    card.locator(f"li[data-member={bob}] button[value=remove]").click()
    wait_until(page,
        "() => document.querySelectorAll('#members-card ul.members > li').length === 2")
    state = server.instance_state(instance_id)
    assert [(p["character_id"], p["muted"]) for p in state["participants"]] == [
        (ann, False), (cy, True)]

    # Cy moves to the top: Cy is now the story's character (the chat follows it), Ann second.
    card = page.get_by_test_id("members-card")
    assert card.get_by_test_id("members-first-hint").is_visible()
    card.locator(f"li[data-member={cy}]").get_by_test_id("member-up").click()
    wait_until(page,
        "ids => [...document.querySelectorAll('#members-card ul.members > li')]"
        ".map((li) => li.dataset.member).join() === ids", arg=f"{cy},{ann}")
    state = server.instance_state(instance_id)
    assert state["character_id"] == cy
    assert [p["character_id"] for p in state["participants"]] == [cy, ann]
    card = page.get_by_test_id("members-card")
    assert "the story's character" in card.locator(f"li[data-member={cy}]").inner_text()

    # The group's reply order is changed in the same card.
    card = page.get_by_test_id("members-card")
    card.get_by_test_id("reply-order").select_option("everyone")
    with page.expect_response(lambda r: r.url.endswith("/members")):
        card.get_by_test_id("reply-order").locator("xpath=ancestor::form").locator(
            "button[type=submit]").click()
    assert server.instance_state(instance_id)["reply_order"] == "everyone"

    # The join prefix / suffix show only in a join mode (SillyTavern hides them in swap), as
    # soon as the mode changes; the scenario override is saved with the group's settings.
    card = page.get_by_test_id("members-card")
    assert not card.get_by_test_id("join-prefix").is_visible()
    card.get_by_test_id("generation-mode").select_option("append")
    assert card.get_by_test_id("join-prefix").is_visible()
    assert card.get_by_test_id("join-suffix").is_visible()
    card.get_by_test_id("scenario-override").fill("A storm shuts the harbour.")
    with page.expect_response(lambda r: r.url.endswith("/members")):
        card.get_by_test_id("reply-order").locator("xpath=ancestor::form").locator(
            "button[type=submit]").click()
    state = server.instance_state(instance_id)
    assert (state["generation_mode"], state["scenario_override"]) == (
        "append", "A storm shuts the harbour.")
    card = page.get_by_test_id("members-card")
    assert card.get_by_test_id("scenario-override").input_value() == "A storm shuts the harbour."
    card.get_by_test_id("generation-mode").select_option("swap")
    assert not card.get_by_test_id("join-prefix").is_visible()
    no_sideways_scroll(page)
    screenshot_take(page, f"72_group_of_three_{tag}", full_page=False)
    assert page.evaluate(AXE_RUN) == []
    assert page.js_errors == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_member_who_left_the_story_still_greets_under_its_own_name(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    tag = f"L{size['width']}"
    names = [f"{name}{tag}" for name in ("Ann", "Bob", "Cy")]
    ids = [character_make(page, server, name) for name in names]
    picture = page.request.post(f"{server.url}/api/v1/characters/{ids[2]}/avatar", multipart={
        "file": {"name": "cy.png", "mimeType": "image/png", "buffer": tiny_png()}},
        headers={"X-CSRFToken": csrf_token(page, server)})
    assert picture.ok, picture.text()
    instance_id = api_call(page, server, "POST", "/instances",
                           {"character_ids": ids})["instance_id"]
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
    screenshot_take(page, f"member_left_{tag}", full_page=False)
    for name in names:
        assert sum(f"I am {name}." in text for text in greetings) == 1, greetings
    # and with its picture
    assert page.locator("[data-testid=message][data-role=assistant]", has_text=f"I am {names[2]}.")\
        .locator("img.avatar").count() == 1
    assert page.js_errors == []


def test_a_member_button_pressed_right_after_the_card_is_swapped_stays_on_the_page(
        page: Page, server: Server) -> None:
    """Swapped content is wired at once: a button pressed just after the members card came back
    (a keyboard's Enter on the kept focus) once submitted its form without htmx, and the page
    became the card's bare fragment at /members."""
    ids = [character_make(page, server, name) for name in ("Uma", "Vic", "Wes")]
    instance_id = api_call(page, server, "POST", "/instances", {"character_ids": ids})[
        "instance_id"]
    page.goto(f"{server.url}/instances/{instance_id}/")
    members_card_open(page)
    page.evaluate("""() => {
      document.body.addEventListener("htmx:afterSwap", (event) => {
        if (event.detail.target?.id !== "members-card") return;
        setTimeout(() => document.querySelectorAll(
          "#members-card [data-testid=member-up]")[1]?.click(), 0);
      }, {once: true});
      document.querySelectorAll("#members-card [data-testid=member-up]")[1].click();
    }""")
    # Two presses of the second member's ↑: it went up, then the one now second went up.
    wait_until(page, "(order) => [...document.querySelectorAll('#members-card li')]"
               ".map((li) => li.dataset.member).join() === order", ",".join(ids))
    assert page.url.rstrip("/").endswith(instance_id)
