"""axe-core (the engine behind the browsers' own audits) on every page a player or an author
opens, light and dark (each page loaded once, audited in both), at phone and laptop width: no
serious or critical violation. The audit itself, and the vendored axe-core, are
tests/e2e/axe_audit.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.axe_audit import (
    AXE,
    RUN,
    audit_in_each_scheme,
    audit_report,
    page_audit,
    themes_audit,
)
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    SCHEMES,
    Server,
    instance_new,
    scheme_emulate,
    screenshot_take,
    wait_until,
)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

PAGES = [
    "/",
    "/instances/inst_001/",
    "/instances/inst_001/history/",
    "/instances/inst_001/persona/",
    "/library/",
    "/library/characters/char_alserqi/",
    "/library/characters/new",
    "/library/backgrounds/new",
    "/library/lorebooks/new",
    "/library/personas/",
    "/settings/",
]


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_no_serious_accessibility_violation_on_any_page(page: Page, server: Server,
                                                         size: dict) -> None:
    """Every page light and dark; at a laptop's width in every reading theme too."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    found = {}
    for path in PAGES:
        if problems := page_audit(page, f"{server.url}{path}"):
            found[path] = problems
        if size == DESKTOP:
            found |= {f"{path} {theme}": problems
                      for theme, problems in themes_audit(page).items()}
    assert found == {}, audit_report(found)


def test_an_error_message_reads_in_either_colour_scheme(page: Page, server: Server,
                                                       tmp_path: Path) -> None:
    """A refused import's message (a light red box) keeps its text readable in dark mode too:
    the same message audited in each scheme (its colours follow the scheme live)."""
    page.add_init_script(path=str(AXE))
    page.goto(f"{server.url}/library/")
    broken = tmp_path / "not a book.json"
    broken.write_text("{ this is not json")
    page.locator("#lorebook-import input[name=file]").set_input_files(str(broken))
    with page.expect_navigation():
        page.locator("#lorebook-import button[type=submit]").click()
    assert page.locator(".flash li.error").count() == 1
    for scheme in SCHEMES:
        scheme_emulate(page, scheme)
        problems = page.evaluate(RUN)
        assert [v for v in problems if v["id"] == "color-contrast"] == [], (scheme, problems)


def test_the_palette_audit_finds_a_fault_of_the_dark_scheme_alone(page: Page,
                                                                   server: Server) -> None:
    """The second scheme is audited with the palette's rules only: a heading unreadable in dark
    alone (a constructed style sheet, which the page's CSP allows) is still found, there."""
    page.add_init_script(path=str(AXE))
    page.goto(f"{server.url}/library/")
    page.evaluate("""() => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync("@media (prefers-color-scheme: dark) { h1 { color: #1a1a1a !important; "
                        + "background: #000 !important; } }");
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    }""")
    found = audit_in_each_scheme(page)
    assert list(found) == ["dark"], found
    assert [v["id"] for v in found["dark"]] == ["color-contrast"], found


def test_a_full_audit_finds_what_axe_with_every_rule_finds(page: Page, server: Server) -> None:
    """The full audit leaves out the rules that can only find minor or moderate faults: on a
    page with faults of both kinds it reports what axe's every rule reports as serious or
    critical, and the left-out rules did find the page's moderate faults."""
    every_rule = RUN.replace(", runOnly: rulesThatCanBeSerious()", "")
    assert every_rule != RUN
    page.add_init_script(path=str(AXE))
    page.goto(f"{server.url}/library/")
    page.evaluate("""() => {
      const main = document.querySelector("main");
      main.insertAdjacentHTML("beforeend", '<input><img src="/static/none.png">'
        + '<button></button><a href="/"></a><div role="tab">tab</div>'
        + '<p lang="xx-nothing">text</p><h5>skipped levels</h5><main>second main</main>');
    }""")
    found = sorted(v["id"] for v in page.evaluate(RUN))
    assert found == sorted(v["id"] for v in page.evaluate(every_rule))
    assert {"label", "image-alt", "button-name", "link-name", "aria-required-parent",
            "valid-lang"} <= set(found), found
    moderate = page.evaluate("""async () => (await axe.run(document, {resultTypes: ["violations"]}))
      .violations.filter((v) => v.impact === "moderate").map((v) => v.id)""")
    assert {"heading-order", "landmark-no-duplicate-main"} <= set(moderate), moderate


def test_an_audit_of_regions_finds_what_is_in_them_and_only_that(page: Page,
                                                                server: Server) -> None:
    page.add_init_script(path=str(AXE))
    page.goto(f"{server.url}/library/")
    page.evaluate("""() => {
      const unnamed = document.createElement("input");
      document.querySelector("form#lorebook-import").append(unnamed);
    }""")
    assert [v["id"] for v in page.evaluate(RUN, ["form#lorebook-import"])] == ["label"]
    assert page.evaluate(RUN, ["h1"]) == []


def test_an_audit_of_one_row_of_a_long_list_puts_the_other_rows_back_as_they_were(
        page: Page, server: Server) -> None:
    """The rows set aside for a region's audit are the same nodes, back in their place, the
    page scrolled where it was; a fault in a row set aside is not the region's."""
    page.add_init_script(path=str(AXE))
    page.goto(f"{server.url}/library/")
    page.evaluate("""() => {
      const list = document.createElement("div");
      for (let n = 0; n < 60; n++) {
        const row = document.createElement("div");
        row.dataset.testid = "lore-row";
        row.id = `row-${n}`;
        row.style.height = "100px";
        row.append(document.createElement("input"));  // unnamed: a fault in every row
        row.kept = n;
        list.append(row);
      }
      document.querySelector("main").append(list);
      document.querySelector("#row-41 input").focus();
      scrollTo(0, 3000);
    }""")
    found = page.evaluate(RUN, ["#row-40"])
    assert [v["id"] for v in found] == ["label"]
    assert [node.split(" :: ")[0] for node in found[0]["nodes"]] == ["#row-40 > input"]
    assert page.evaluate("""() => [...document.querySelectorAll("[data-testid=lore-row]")]
      .every((row, n) => row.kept === n && row.id === `row-${n}`)""")
    assert page.evaluate("scrollY") == 3000
    assert page.evaluate("document.activeElement.parentElement.id") == "row-41"


def test_the_keyboard_reaches_the_message_box_first_on_a_chat_page(page: Page,
                                                                   server: Server) -> None:
    """Every message has a row of buttons before the message box (40 messages: some 300
    presses of Tab): the first Tab offers to skip there, as the page's first stop."""
    page.set_viewport_size(DESKTOP)
    instance_new(page, server)
    page.keyboard.press("Tab")
    skip = page.get_by_test_id("skip-to-input")
    assert page.evaluate("document.activeElement.dataset.testid") == "skip-to-input"
    assert skip.inner_text() == "Skip to the message box"
    assert skip.bounding_box()["y"] >= 0, "the focused link is out of sight"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "input"


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["laptop", "phone"])
def test_the_second_tab_offers_the_story_tools_past_every_message(page: Page, server: Server,
                                                                 size: dict) -> None:
    """The outline, memory and export came after every message's buttons: some 300 presses
    of Tab (newcomer round). The second stop skips there, opening the drawer on a phone."""
    page.set_viewport_size(size)
    instance_new(page, server)
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    skip = page.get_by_test_id("skip-to-story")
    assert page.evaluate("document.activeElement.dataset.testid") == "skip-to-story"
    assert skip.bounding_box()["y"] >= 0, "the focused link is out of sight"
    page.keyboard.press("Enter")
    # (a phone's drawer slides in first)
    wait_until(page, "() => document.activeElement.id === 'drawer'")
    assert page.locator("#drawer").is_visible()
    screenshot_take(page, f"skip_to_story_{size['width']}", full_page=False)
    page.keyboard.press("Tab")
    assert page.evaluate("document.getElementById('drawer').contains(document.activeElement)")
