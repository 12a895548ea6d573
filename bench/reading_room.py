"""How much of a phone's screen the conversation keeps while the player types (issue 33 item 1).

    .venv/bin/python bench/reading_room.py [--sizes 390x500,390x844]

Starts the app as a fresh clone runs it (no language model configured: the offline demo and its
banner), opens a chat in headless Chromium, plays three turns, then for each size measures the
message list's visible height (its bounding box inside the window) with the composer blurred and
focused. 390×500 is a 390×844 phone with its keyboard open. Prints one line per size and state.
Needs /usr/bin/chromium and the playwright package, as tests/e2e does.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright

from tests.browser import CHROMIUM, CHROMIUM_ARGS
from tests.e2e.conftest import (
    _daphne_start,
    _free_port,
    _server_env,
)
from tests.prepared_data import _PREPARE

ROOT = Path(__file__).resolve().parents[1]


def _data_prepare(env: dict) -> None:
    """migrate, bootstrap and seed the demo, as `make run` does on a fresh clone."""
    subprocess.run([sys.executable, "-c", _PREPARE], cwd=ROOT, check=True, capture_output=True,
                   env={**env, "DJANGO_SETTINGS_MODULE": "personalab.settings"}, timeout=300)


VISIBLE = """() => { const r = document.getElementById('messages').getBoundingClientRect();
  return Math.round(Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)); }"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="390x500,390x844")
    sizes = [tuple(int(n) for n in size.split("x")) for size in parser.parse_args().sizes.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        data = base / "data"
        (data / "modules").mkdir(parents=True)
        (data / "modules" / "memory.json").write_text('{"recall_enabled": false}')
        env = {key: value for key, value in _server_env(data, _NoStub(), base / "secret").items()
               if key not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
        _data_prepare(env)
        password = (data / ".admin_password").read_text().strip()
        port = _free_port()
        server = _daphne_start(env, port, base / "daphne.log")
        url = f"http://127.0.0.1:{port}"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                     args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 390, "height": 844})
                page.goto(f"{url}/login/")
                page.fill("input[name=username]", "admin")
                page.fill("input[name=password]", password)
                page.click("button[type=submit]")
                page.wait_for_url(f"{url}/")
                page.click("form[action='/instances/new'] button[type=submit]")
                page.wait_for_selector("#messages")
                for text in ("Hello there.", "Tell me about the forest.", "And the river?"):
                    page.fill("#input", text)
                    page.press("#input", "Enter")
                    page.wait_for_function("() => !document.querySelector('#messages .msg.pending')"
                                           " && !document.getElementById('send-button').disabled")
                for width, height in sizes:
                    page.set_viewport_size({"width": width, "height": height})
                    page.locator("#messages").click(position={"x": 5, "y": 5})
                    page.wait_for_timeout(300)
                    reading = page.evaluate(VISIBLE)
                    page.focus("#input")
                    page.wait_for_timeout(300)
                    typing = page.evaluate(VISIBLE)
                    print(f"{width}x{height}: conversation {reading} px while reading, "
                          f"{typing} px while typing")
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)


class _NoStub:
    """No LLM endpoint: the server runs the offline demo."""
    base_url = ""


if __name__ == "__main__":
    main()
