"""axe-core (the engine behind the browsers' own audits) run on a page as it stands: in full,
in the palette's rules alone for another colour scheme, reading theme or accent, or in regions of
a page whose whole is audited elsewhere. Only serious and critical violations are reported.

axe-core 4.14.1 is vendored from npm (`npm pack axe-core@4.14.1`, tests/e2e/vendor/, MPL-2.0) and
injected as an init script, which the page's Content-Security-Policy does not govern."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests.e2e.conftest import SCHEMES, network_quiet, scheme_emulate

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core-4.14.1.min.js"
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
  function rulesThatCanBeSerious() {
    const checks = axe._audit.data.checks;
    const heavy = (impact) => impact === "serious" || impact === "critical";
    const impact = (check) => checks[check.id ?? check]?.impact;  // named, or with options
    return axe._audit.rules.filter((rule) => rule.enabled && (heavy(rule.impact)
      || [...rule.any, ...rule.all, ...rule.none].some((check) => !impact(check)
        || heavy(impact(check))))).map((rule) => rule.id);
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
# A full audit runs the rules that can find a serious or critical violation, the only ones
# reported: a violation's impact is the highest of its failed checks', fixed in axe's metadata
# (a rule's own impact counted too, a check without one kept), so the 25 rules whose checks are
# all minor or moderate (region, heading-order, the landmark rules, …) can never fail a test.
# They were 28 % of a full run on the app's pages.
RUN = _RUN.replace("OPTIONS", ", runOnly: rulesThatCanBeSerious()")
# The rules whose findings depend on the palette. A colour scheme, a reading theme and an accent
# change only the page's colours (app.css's custom properties), so a page state audited in full
# once is audited in another palette with these alone (issue 31: axe's full runs were a third
# of the browser tests' CPU, most of them the same page again in other colours).
PALETTE_RULES = ("color-contrast", "link-in-text-block")
RUN_PALETTE = _RUN.replace("OPTIONS", f", runOnly: {list(PALETTE_RULES)}")


def page_audit(page: Page, url: str, *, palette_only: bool = False) -> dict[str, list[dict]]:
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
