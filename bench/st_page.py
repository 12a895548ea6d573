"""SillyTavern's page driven as a user does (bench/st_side_by_side.py, st_side_group.py): wait
until it is ready, import and open a card with its book linked, send messages from the input box
and take the requests the recording stub caught; and the persona both apps are played as."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from tests.stub_llm import StubLLM

PERSONA_NAME = "Alex"
PERSONA = "[PERSONA] Alex is a travelling cartographer with ink-stained gloves."


def st_page_ready(page: Any) -> None:
    """SillyTavern removes its preloader once settings and characters are loaded; then wait for
    the auto-connect to the stub."""
    page.wait_for_function("window.SillyTavern && !document.getElementById('preloader')",
                           timeout=300_000, polling=1000)
    page.wait_for_function("SillyTavern.getContext().onlineStatus !== 'no_connection'",
                           timeout=120_000, polling=500)


def st_card_open(page: Any, card: dict) -> str:
    """Import `card`, open it and link its book as a user does; its avatar file name."""
    name = card["data"]["name"]
    imported = page.evaluate("""async (card) => {
        const ctx = SillyTavern.getContext();
        const form = new FormData();
        form.append('avatar', new File([JSON.stringify(card)], card.data.name + '.json',
                                       {type: 'application/json'}));
        form.append('file_type', 'json');
        const headers = ctx.getRequestHeaders(); delete headers['Content-Type'];
        const answer = await fetch('/api/characters/import', {method: 'POST', headers, body: form});
        const text = await answer.text();
        if (!answer.ok || text.includes('"error"')) throw new Error('import: ' + text);
        return text;
    }""", card)
    print(f"SillyTavern import of {name}: {imported}", file=sys.stderr)
    page.reload()
    st_page_ready(page)
    avatar = json.loads(imported)["file_name"] + ".png"  # "Amy1" when an Amy was there already
    page.wait_for_function("(a) => SillyTavern.getContext().characters"
                           ".some(c => c.avatar === a)", arg=avatar, timeout=120_000)
    index = page.evaluate("(a) => SillyTavern.getContext().characters"
                          ".findIndex(c => c.avatar === a)", avatar)
    page.evaluate("(i) => SillyTavern.getContext().selectCharacterById(String(i))", index)
    book = (card["data"].get("character_book") or {}).get("name")
    if book:
        # What a user does: More... → "Import Card Lore", then Yes. (The popup offered on first
        # opening imports the book but, in 1.12.6, does not save the link to the character.)
        page.evaluate("""() => {
            document.getElementById('import_character_info').selected = true;
            $('#char-management-dropdown').trigger('change');
        }""")
        page.locator(".popup-button-ok:visible").first.click(timeout=30_000)
        page.wait_for_function("([i, book]) => SillyTavern.getContext().characters[i]"
                               "?.data?.extensions?.world === book", arg=[index, book],
                               timeout=60_000, polling=500)
        page.keyboard.press("Escape")
    page.wait_for_function("SillyTavern.getContext().chat.length >= 1", timeout=30_000)
    return avatar


def st_messages_send(page: Any, messages: list[str], stub: StubLLM,
                     replies: int = 1) -> list[dict]:
    """Send `messages` from the input box, each answered by `replies` requests (a group's
    members in list order); the requests, in order."""
    captured = []
    for text in messages:
        before, length = len(stub.requests), page.evaluate("SillyTavern.getContext().chat.length")
        page.fill("#send_textarea", text)
        page.click("#send_but")
        deadline = time.time() + 120 * replies
        while len(stub.requests) < before + replies and time.time() < deadline:
            time.sleep(0.2)
        # The replies land in the chat; wait until the input is free again before the next one.
        page.wait_for_function("(n) => !document.querySelector('#send_but').classList"
                               ".contains('displayNone') && SillyTavern.getContext().chat"
                               ".length >= n && SillyTavern.getContext().chat.at(-1).is_user"
                               " === false", arg=length + 1 + replies, timeout=120_000 * replies)
        got = stub.requests[before:before + replies]
        captured += [*got, *[{}] * (replies - len(got))]
    return captured
