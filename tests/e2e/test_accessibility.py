"""axe-core (the engine behind the browsers' own audits) on every page a player or an author
opens, light and dark (each page loaded once, audited in both), at phone and laptop width: no
serious or critical violation.

axe-core 4.14.1 is vendored from npm (`npm pack axe-core@4.14.1`, tests/e2e/vendor/, MPL-2.0) and
injected as an init script, which the page's Content-Security-Policy does not govern."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import DESKTOP, PHONE, SCHEMES, Server

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
RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({id: v.id, impact: v.impact, help: v.help,
                  nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + " :: "
                    + (n.failureSummary || "").split("\\n").slice(1, 2).join(""))}));
}"""


def _page_audit(page: Page, url: str) -> dict[str, list[dict]]:
    """{scheme: serious or critical violations} of one page load in each colour scheme: the
    page's colours follow the scheme live (app.css's media queries), so one load serves both."""
    page.goto(url)
    page.wait_for_load_state("networkidle")
    found = {}
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        if problems := page.evaluate(RUN):
            found[scheme] = problems
    return found


def audit_report(found: dict[str, dict[str, list[dict]]]) -> str:
    return "\n".join(f"{path} ({scheme}): {v['id']} ({v['impact']}) {v['help']}: {v['nodes']}"
                     for path, schemes in found.items()
                     for scheme, problems in schemes.items() for v in problems)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_no_serious_accessibility_violation_on_any_page(page: Page, server: Server,
                                                         size: dict) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    found = {path: problems for path in PAGES
             if (problems := _page_audit(page, f"{server.url}{path}"))}
    assert found == {}, audit_report(found)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_error_message_reads_in_either_colour_scheme(page: Page, server: Server,
                                                       scheme: str, tmp_path: Path) -> None:
    """A refused import's message (a light red box) keeps its text readable in dark mode too."""
    page.add_init_script(path=str(AXE))
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{server.url}/library/")
    broken = tmp_path / "not a book.json"
    broken.write_text("{ this is not json")
    page.locator("#lorebook-import input[type=file]").set_input_files(str(broken))
    with page.expect_navigation():
        page.locator("#lorebook-import button[type=submit]").click()
    assert page.locator(".flash li.error").count() == 1
    problems = page.evaluate(RUN)
    assert [v for v in problems if v["id"] == "color-contrast"] == [], problems
