"""What a browser submits for the library's forms, read from the page: the character form
(every field it shows, textarea lines with CRLF) and the lorebook form (posted back with the
changes a test types in)."""

from __future__ import annotations

from html.parser import HTMLParser


class _CharacterForm(HTMLParser):
    """What a browser would submit for the character form, as (name, value) pairs."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[tuple[str, str]] = []
        self._inside_form = False
        self._textarea: str | None = None
        self._text: list[str] = []
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("id") == "character-form":
            self._inside_form = True
        if not self._inside_form:
            return
        if tag == "input" and attrs.get("type") != "submit" and attrs.get("name"):
            self.fields.append((attrs["name"], attrs.get("value") or ""))
        elif tag == "textarea":
            self._textarea, self._text = attrs["name"], []
        elif tag == "select":
            self._select = attrs["name"]
        elif tag == "option" and self._select and "selected" in attrs:
            self.fields.append((self._select, attrs["value"]))

    def handle_endtag(self, tag):
        if tag == "textarea" and self._textarea:
            text = "".join(self._text)
            text = text[1:] if text.startswith("\n") else text  # as browsers read a textarea
            # Browsers submit textarea lines with CRLF.
            self.fields.append((self._textarea, text.replace("\n", "\r\n")))
            self._textarea = None
        elif tag == "select":
            self._select = None
        elif tag == "form":
            self._inside_form = False

    def handle_data(self, data):
        if self._textarea:
            self._text.append(data)


def character_form_submitted(html: str) -> dict[str, list[str]]:
    """What a browser submits for the character form of the page `html`."""
    parser = _CharacterForm()
    parser.feed(html)
    submitted: dict[str, list[str]] = {}
    for name, value in parser.fields:
        submitted.setdefault(name, []).append(value)
    return submitted


class _LorebookForm(HTMLParser):
    """What a browser submits for the lorebook form, read from the page."""

    def __init__(self):
        super().__init__()
        self.fields: list[tuple[str, str]] = []
        self._textarea: str | None = None
        self._select: str | None = None
        self._select_value: str | None = None
        self._option: dict | None = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("name") and attrs.get("name") != "csrfmiddlewaretoken":
            if attrs.get("type") == "checkbox":
                if "checked" in attrs:
                    self.fields.append((attrs["name"], attrs.get("value", "on")))
            else:
                self.fields.append((attrs["name"], attrs.get("value") or ""))
        elif tag == "textarea":
            self._textarea, self._text = attrs.get("name"), ""
        elif tag == "select":
            self._select, self._select_value = attrs.get("name"), None
        elif tag == "option":
            self._option, self._text = attrs, ""

    def handle_data(self, data):
        self._text += data

    def handle_endtag(self, tag):
        if tag == "textarea" and self._textarea:
            self.fields.append((self._textarea, self._text.removeprefix("\n")))
            self._textarea = None
        elif tag == "option" and self._option is not None:
            value = self._option.get("value", self._text)
            if self._select_value is None or "selected" in self._option:
                self._select_value = value
            self._option = None
        elif tag == "select" and self._select:
            self.fields.append((self._select, self._select_value or ""))
            self._select = None


def lorebook_form_fields(page: str) -> list[tuple[str, str]]:
    """What a browser submits for the lorebook form of the page, as (name, value) pairs."""
    reader = _LorebookForm()
    start = page.index('id="lorebook-form"')
    reader.feed(page[start:page.index("</form>", start)])
    return reader.fields


def lorebook_form_submit(client, url: str, **changes) -> object:
    """The lorebook form of the page at `url` posted as a browser submits it, with `changes`
    (field name: value) typed in."""
    data: dict[str, list[str]] = {}
    for name, value in lorebook_form_fields(client.get(url).content.decode()):
        data.setdefault(name, []).append(value)
    data.update({name: [value] for name, value in changes.items()})
    return client.post(url, data)
