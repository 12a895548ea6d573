"""The text a reader of a page sees or hears: its text nodes and label attributes (title,
placeholder, aria-label, alt, the confirm prompts, a button's value), not what is inside a script,
style, textarea, pre or template element, nor what is marked translate="no"."""

from __future__ import annotations

from html.parser import HTMLParser

SKIPPED_TAGS = {"script", "style", "textarea", "pre", "template"}
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
             "source", "track", "wbr"}
LABEL_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt", "data-confirm", "hx-confirm")


class VisibleText(HTMLParser):
    """The text a reader sees or hears: text nodes and the label attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[bool] = []
        self.pieces: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        skipped = (bool(self.open and self.open[-1]) or tag in SKIPPED_TAGS
                   or attributes.get("translate") == "no")
        if not skipped:
            self.pieces += [attributes[name] for name in LABEL_ATTRIBUTES
                            if attributes.get(name)]
            if tag == "input" and attributes.get("type") in ("submit", "button"):
                self.pieces.append(attributes.get("value") or "")
        if tag not in VOID_TAGS:
            self.open.append(skipped)

    def handle_endtag(self, tag):
        if tag not in VOID_TAGS and self.open:
            self.open.pop()

    def handle_data(self, data):
        if data.strip() and not (self.open and self.open[-1]):
            self.pieces.append(data.strip())


def visible_text(html: str) -> list[str]:
    """The pieces of text of the page `html` that a reader sees or hears, in order."""
    parser = VisibleText()
    parser.feed(html)
    return parser.pieces
