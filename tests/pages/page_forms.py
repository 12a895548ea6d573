"""The POST forms of a page as a browser without scripts submits them (the no-script tests)."""

from __future__ import annotations

from html.parser import HTMLParser


class PageForms(HTMLParser):
    """Each POST form of a page as a browser without scripts submits it: its action and the
    fields (hidden inputs, a textarea's text, a select's chosen option: the one marked
    selected, else the first), keyed by its `action` field."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self._form: dict | None = None
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and (attrs.get("method") or "").lower() == "post":
            self._form = {"url": attrs.get("action"), "fields": {}, "buttons": []}
            self.forms.append(self._form)
        elif self._form is None:
            return
        elif tag == "input" and attrs.get("name"):
            self._form["fields"][attrs["name"]] = attrs.get("value") or ""
        elif tag == "textarea":
            self._textarea = attrs["name"]
            self._form["fields"][self._textarea] = ""
        elif tag == "select" and attrs.get("name"):
            self._select = attrs["name"]
        elif tag == "option" and self._select:
            fields = self._form["fields"]
            if self._select not in fields or "selected" in attrs:
                fields[self._select] = attrs.get("value") or ""
        elif tag == "button" and attrs.get("name"):
            self._form["buttons"].append((attrs["name"], attrs.get("value"), "disabled" in attrs))

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data):
        if self._textarea and self._form is not None:
            self._form["fields"][self._textarea] += data


def page_forms(html: str) -> list[dict]:
    parser = PageForms()
    parser.feed(html)
    return parser.forms
