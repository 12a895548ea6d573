"""axe-core (the engine behind the browsers' own audits) on every page a player or an author
opens, light and dark (each page loaded once, audited in both), at phone and laptop width: no
serious or critical violation.

axe-core 4.14.1 is vendored from npm (`npm pack axe-core@4.14.1`, tests/e2e/vendor/, MPL-2.0) and
injected as an init script, which the page's Content-Security-Policy does not govern."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    SCHEMES,
    Server,
    instance_new,
    network_quiet,
    scheme_emulate,
)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core-4.14.1.min.js"
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
_RUN = """async (regions) => {
  const context = regions ? {include: regions.map((selector) => [selector])} : document;
  const aside = regions ? rowsAside(regions) : [];
  const [x, y] = [scrollX, scrollY];
  for (const [row, mark] of aside) row.replaceWith(mark);
  try {
    const result = await axe.run(context, {resultTypes: ["violations"]OPTIONS});
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + " :: "
                      + (n.failureSummary || "").split("\\n").slice(1, 2).join(""))}));
  } finally {
    for (const [row, mark] of aside) mark.replaceWith(row);
    scrollTo(x, y);
  }
  function rowsAside(regions) {
    const kept = regions.flatMap((selector) => [...document.querySelectorAll(selector)]);
    if (document.activeElement) kept.push(document.activeElement);  // a row set aside blurs it
    return [...document.querySelectorAll("LONG_LIST_ROWS")]
      .filter((row) => !kept.some((node) => row.contains(node) || node.contains(row)))
      .map((row) => [row, document.createComment("set aside for an audit")]);
  }
}"""
# RUN is given CSS selectors to audit those regions alone: a state of one part of a page whose
# whole is audited elsewhere. It sets aside, for the run, the rows of a long list that hold none
# of them (the same nodes put back after, and the scroll): axe builds its tree of the whole
# document each run, so an entry of the 100-entry lorebook (8,600 elements) cost 0.6-1.2 s, as
# much as the whole book (issue 31). The whole book is audited in test_lorebook_editor.py.
LONG_LIST_ROWS = "[data-testid=lore-row]"
_RUN = _RUN.replace("LONG_LIST_ROWS", LONG_LIST_ROWS)
RUN = _RUN.replace("OPTIONS", "")
# The rules whose findings depend on the palette. A colour scheme, a reading theme and an accent
# change only the page's colours (app.css's custom properties), so a page state audited in full
# once is audited in another palette with these alone (issue 31: axe's full runs were a third
# of the browser tests' CPU, most of them the same page again in other colours).
PALETTE_RULES = ("color-contrast", "link-in-text-block")
RUN_PALETTE = _RUN.replace("OPTIONS", f", runOnly: {list(PALETTE_RULES)}")


def _page_audit(page: Page, url: str, *, palette_only: bool = False) -> dict[str, list[dict]]:
    """{scheme: serious or critical violations} of one page load in each colour scheme."""
    with network_quiet(page):
        page.goto(url)
    return audit_in_each_scheme(page, palette_only=palette_only)


def audit_in_each_scheme(page: Page, *, palette_only: bool = False) -> dict[str, list[dict]]:
    """{scheme: serious or critical violations} of the page as it stands: in full in the first
    scheme (unless `palette_only`), then its colours in the others (the page's colours follow
    the scheme live, app.css's media queries, so one load serves both)."""
    found = {}
    for scheme in SCHEMES:
        scheme_emulate(page, scheme)
        full = scheme == SCHEMES[0] and not palette_only
        if problems := page.evaluate(RUN if full else RUN_PALETTE):
            found[scheme] = problems
    return found


def audit_report(found: dict[str, dict[str, list[dict]]]) -> str:
    return "\n".join(f"{path} ({scheme}): {v['id']} ({v['impact']}) {v['help']}: {v['nodes']}"
                     for path, schemes in found.items()
                     for scheme, problems in schemes.items() for v in problems)


# The reading themes besides the default (the chat's drawer and the settings page; app.css,
# body[data-reading-theme]). A theme changes only the page's colours, so a page audited in full
# in the default theme wears each of the others, live, audited with the palette's rules in each
# scheme: at a laptop's width here, on the same load (issue 31: every page was loaded again for
# it); at a phone's with the drawer open in tests/e2e/test_reading_comfort.py.
OTHER_THEMES = ("paper", "contrast", "night")
BODY_BACKGROUND = "() => getComputedStyle(document.body).backgroundColor"


def themes_audit(page: Page) -> dict[str, dict[str, list[dict]]]:
    """{theme: {scheme: violations}} of the page as it stands in each other theme, then the
    page put back in its own."""
    own = page.evaluate("() => document.body.dataset.readingTheme")
    found = {}
    for theme in OTHER_THEMES:
        before = page.evaluate(BODY_BACKGROUND)
        page.evaluate("(theme) => { document.body.dataset.readingTheme = theme; }", theme)
        assert page.evaluate(BODY_BACKGROUND) != before, theme  # it wears the theme
        if problems := audit_in_each_scheme(page, palette_only=True):
            found[theme] = problems
    page.evaluate("(theme) => { document.body.dataset.readingTheme = theme; }", own)
    return found


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_no_serious_accessibility_violation_on_any_page(page: Page, server: Server,
                                                         size: dict) -> None:
    """Every page light and dark; at a laptop's width in every reading theme too."""
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    found = {}
    for path in PAGES:
        if problems := _page_audit(page, f"{server.url}{path}"):
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
    page.locator("#lorebook-import input[type=file]").set_input_files(str(broken))
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
