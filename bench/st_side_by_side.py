"""Issue 32's side-by-side run: five cards (built here from the documented V2/V3 card format),
each on its own and three of them in a group chat (bench/st_side_group.py), played in SillyTavern
and in PersonaLab with the same persona and player messages, both apps' requests to the model
captured by one recording stub (tests/stub_llm.py), then compared.

    .venv/bin/python bench/st_side_by_side.py --sillytavern /work/st/st-1.12.6 [--cards amy,brin]
        [--group amy,brin,cato] [--save requests.json]    (later: --load requests.json compares
        them again, no apps run; --st-load requests.json plays PersonaLab's side again)

SillyTavern (a checkout with `npm install` done) is started on a free localhost port with its
connection set to the stub (chat completion source "custom", no streaming) and its page driven
with Playwright (Debian's Chromium, tests/browser.py): each card imported, opened, its book
linked, the messages sent from the input box. PersonaLab runs in a child process (Django test client, a throwaway
data folder): cards imported over the REST API, a persona, an instance, `POST /api/v1/chat`.

Prints per card and turn both apps' messages (role, short text) and the differences: lore
markers (`[ELDORIA]`, found whatever the wrapping) in one request only, or in another role or
place; how often SillyTavern's utility lines are sent ("[Start a new Chat]", "[Example Chat]",
the personality / scenario wording, the group nudge, its default main prompt); the example
dialogue turns sent as named messages.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from request_compare import compare, lore_markers, placement_of
from st_page import PERSONA, PERSONA_NAME, st_card_open, st_messages_send, st_page_ready
from st_side_group import GROUP, group_compare, pl_group_play, st_group_play

from tests import cluster
from tests.browser import CHROMIUM
from tests.stub_llm import Reply, StubLLM


def _entry(uid: int, keys: list[str], content: str, **extra: Any) -> dict[str, Any]:
    """A V2 character_book entry; fields not given stay unset (the book's / app's defaults)."""
    return {"id": uid, "keys": keys, "content": content, "enabled": True,
            "insertion_order": 100, **extra}


def cards_build() -> dict[str, dict[str, Any]]:
    amy = {"name": "Amy", "description": "[AMY-DESC] Amy is a ranger of Eldoria.",
           "personality": "curious", "scenario": "A forest road at dusk.",
           "first_mes": "Amy tugs off her gloves and waves.", "mes_example": "",
           "character_book": {"name": "Eldoria book", "entries": [
               _entry(1, ["Eldoria"], "[ELDORIA] Eldoria's wolves follow Shadowfang."),
               _entry(2, ["Shadowfang"], "[SHADOWFANG] Shadowfang waits in the glade."),
               _entry(3, ["glade"], "[GLADE] The glade is moonlit and silent."),
               _entry(4, ["love"], "[LOVE] Amy loves the old songs.")]}}
    brin = {"name": "Brin", "description": "[BRIN-DESC] Brin is a dragon scholar.",
            "personality": "dry", "scenario": "A library tower.",
            "first_mes": "{{char}} looks up from a scroll at {{user}}.",
            "mes_example": "<START>\n{{user}}: Hello.\n{{char}}: [EXAMPLE] Brin nods.",
            "system_prompt": "[SYSPROMPT] Write as {{char}}. {{original}}",
            "post_history_instructions": "[POSTHIST] Stay in character as {{char}}.",
            "character_book": {"name": "Brin book", "entries": [
                _entry(1, ["/dra(g|k)on/i"], "[DRAGON] Dragons nest in the north."),
                _entry(2, [], "[CONSTANT] The tower has no stairs.", constant=True),
                _entry(3, ["check"], "[CHECK] Brin checks every citation."),
                # Lore at the top / bottom of the examples (SillyTavern: 5 / 6).
                _entry(4, [], "{{user}}: And dragons?\n{{char}}: [EM-TOP] Brin points north.",
                       constant=True, extensions={"position": 5}),
                _entry(5, [], "[EM-PLAIN] Brin never lends a book.", constant=True,
                       extensions={"position": 6})]}}
    cato = {"name": "Cato", "description": "[CATO-DESC] Cato runs a night market stall.",
            "personality": "sly", "scenario": "A lantern-lit market.",
            "first_mes": "Cato grins over a crate of lanterns.",
            "extensions": {"depth_prompt": {"prompt": "[CHARNOTE] Cato never tells the truth twice.",
                                            "depth": 2, "role": "system"}},
            "character_book": {"name": "Cato book", "entries": [
                _entry(1, ["lantern"], "[LANTERN-D1-USER] Lanterns here are bought, never lit.",
                       extensions={"position": 4, "depth": 1, "role": 1}),
                _entry(2, ["price"], "[PRICE-D0-ASSISTANT] Every price is a riddle.",
                       extensions={"position": 4, "depth": 0, "role": 2}),
                _entry(3, ["market"], "[MARKET-D3-SYSTEM] The market moves each night.",
                       extensions={"position": 4, "depth": 3, "role": 0})]}}
    dara = {"name": "Dara", "description": "[DARA-DESC] Dara keeps a lighthouse.",
            "personality": "calm", "scenario": "A storm over the sea.",
            "first_mes": "Dara trims the lamp.",
            "alternate_greetings": ["[DARA-GREET2] Dara waves from the balcony.",
                                    "[DARA-GREET3] Dara is asleep."],
            "mes_example": "<START>\n{{char}}: [DARA-EXAMPLE] The sea is loud tonight.",
            "character_book": {"name": "Dara book", "scan_depth": 4, "recursive_scanning": False,
                               "entries": [
                _entry(1, ["storm"], "[STORM] Storms here last three days.",
                       secondary_keys=["sea"], selective=True),
                _entry(2, ["ship"], "[SHIP] A ship was lost last winter; the storm took it.",
                       position="before_char"),
                _entry(3, ["lamp"], "[LAMP] The lamp burns whale oil.",
                       position="after_char")]}}
    eli = {"name": "Eli", "description": "[ELI-DESC] Eli is a clockmaker.",
           "personality": "precise", "scenario": "A workshop full of ticking.",
           "first_mes": "Eli sets down a tiny gear.",
           "post_history_instructions": "[ELI-POSTHIST] Keep replies short.",
           "extensions": {"depth_prompt": {"prompt": "[ELI-NOTE] Eli hums while working.",
                                           "depth": 0, "role": "assistant"}},
           "character_book": {"name": "Eli book", "entries": [
               _entry(1, ["gear"], "[GEAR] Eli's gears are brass.",
                      extensions={"position": 4, "depth": 2, "role": 0}),
               _entry(2, ["clock"], "[CLOCK] The town clock is Eli's.", case_sensitive=True)]}}
    out = {}
    for key, data in (("amy", amy), ("brin", brin), ("cato", cato), ("dara", dara)):
        out[key] = {"spec": "chara_card_v2", "spec_version": "2.0",
                    "data": {"tags": [], "creator": "bench", "creator_notes": "",
                             "character_version": "1", "alternate_greetings": [],
                             "system_prompt": "", "post_history_instructions": "",
                             "mes_example": "", "extensions": {}, **data}}
    out["eli"] = {"spec": "chara_card_v3", "spec_version": "3.0",
                  "data": {"tags": [], "creator": "bench", "creator_notes": "",
                           "character_version": "1", "alternate_greetings": [],
                           "system_prompt": "", "mes_example": "", "group_only_greetings": [],
                           **eli}}
    return out


MESSAGES = {
    "amy": ["Tell me about Eldoria.", "I pull on my gloves.", "Where do we sleep tonight?",
            "Sing me a song about love."],
    "brin": ["Have you seen a drakon?", "Please check the map.", "What is on the top shelf?"],
    "cato": ["How much for a lantern?", "What is the price of silence?", "Is the market safe?"],
    "dara": ["The storm is coming.", "Is that a ship out on the sea?", "Light the lamp."],
    "eli": ["Can you fix this gear?", "When does the clock strike?", "Thank you."],
}
# Cards played from an alternate greeting: swiped to before the first message, in both apps.
SWIPE_GREETING = {"dara"}
GROUP_KEY = "group"  # the group's requests, beside the cards' (bench/st_side_group.py)


# --- SillyTavern -------------------------------------------------------------------


def st_settings(data: Path, stub_url: str) -> None:
    path = data / "default-user" / "settings.json"
    settings = json.loads(path.read_text())
    settings["main_api"] = "openai"
    settings["username"] = PERSONA_NAME
    settings["firstRun"] = False  # no welcome dialog asking for a persona name
    avatar = settings.get("user_avatar") or "user-default.png"
    settings["user_avatar"] = avatar
    oai = settings["oai_settings"]
    oai.update({"chat_completion_source": "custom", "custom_url": stub_url,
                "custom_model": "stub-model", "stream_openai": False,
                "openai_max_context": 16384, "openai_max_tokens": 300})
    power = settings["power_user"]
    power.update({"persona_description": PERSONA, "persona_description_position": 0,
                  "personas": {avatar: PERSONA_NAME},
                  "persona_descriptions": {avatar: {"description": PERSONA, "position": 0,
                                                    "depth": 2, "role": 0}},
                  "default_persona": avatar, "auto_connect": True,
                  "world_import_dialog": False})
    path.write_text(json.dumps(settings, indent=2))


def st_run(root: Path, cards: dict[str, dict], names: list[str], stub: StubLLM,
           running: tuple[str, Path] | None = None, group: list[str] = ()) -> dict:
    if running:  # a SillyTavern already started on that data folder (saves its slow start)
        st_settings(running[1], stub.base_url)
        return st_drive(running[0], cards, names, stub, group)
    with st_started(root) as (url, data):
        st_settings(data, stub.base_url)
        return st_drive(url, cards, names, stub, group)


@contextlib.contextmanager
def st_started(root: Path) -> Iterator[tuple[str, Path]]:
    """SillyTavern started on a free localhost port with a throwaway data folder: (its URL,
    the folder); stopped and the folder removed at the end."""
    port = _port_free()
    data = Path(tempfile.mkdtemp(prefix="st-data-"))
    env = {**os.environ}
    args = ["nice", "-n", "15", "node", "server.js", "--port", str(port), "--dataRoot", str(data),
            "--listen", "false", "--whitelist", "false", "--autorun", "false",
            "--basicAuthMode", "false"]
    log = open(data / "st.log", "w")  # noqa: SIM115 (open for the child's whole life)
    process = subprocess.Popen(args, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_http(f"http://127.0.0.1:{port}/", process, 900)
        yield f"http://127.0.0.1:{port}/", data
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        if process.poll() is None:
            process.kill()
        shutil.rmtree(data, ignore_errors=True)


def st_drive(url: str, cards: dict[str, dict], names: list[str], stub: StubLLM,
             group: list[str] = ()) -> dict:
    """Each card of `names` played on its own, then the `group` (bench/st_side_group.py)."""
    from playwright.sync_api import sync_playwright

    requests: dict[str, list[dict]] = {}
    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--disable-background-networking", "--disable-component-update"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        st_page_ready(page)
        opened: dict[str, str] = {}
        for name in names:
            requests[name] = st_card_play(page, cards[name], MESSAGES[name], stub, opened)
        if group:
            requests[GROUP_KEY] = st_group_play(page, cards, group, stub, opened)
        browser.close()
    return requests


def st_card_play(page: Any, card: dict, messages: list[str], stub: StubLLM,
                 opened: dict[str, str]) -> list[dict]:
    opened[card["data"]["name"].lower()] = st_card_open(page, card)
    if card["data"]["name"].lower() in SWIPE_GREETING:
        page.locator("#chat .last_mes .swipe_right").first.click()
        page.wait_for_function("SillyTavern.getContext().chat[0].swipe_id === 1",
                               timeout=30_000)
    return st_messages_send(page, messages, stub)


# --- PersonaLab ----------------------------------------------------------------------


def pl_run(cards: dict[str, dict], names: list[str], stub: StubLLM,
           group: list[str] = ()) -> dict:
    data = Path(tempfile.mkdtemp(prefix="pl-side-"))
    env = cluster.worker_env(data, OPENAI_BASE_URL=stub.base_url, OPENAI_API_KEY="bench-key",
                             PERSONALAB_MODEL="stub-model", PERSONALAB_CONTEXT_TOKENS="16384")
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=REPO, env=env, check=True)
        payload = json.dumps({"cards": {n: cards[n] for n in dict.fromkeys([*names, *group])},
                              "messages": MESSAGES, "names": names, "group": list(group)})
        done = subprocess.run([sys.executable, __file__, "--personalab-child"], check=False,
                              cwd=REPO,
                              env=env, input=payload, text=True, capture_output=True)
        try:  # a child that played every turn but crashed on its way out still counts
            counts = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            raise SystemExit(f"PersonaLab side failed:\n{done.stderr[-3000:]}") from None
        if done.returncode:
            print(f"PersonaLab child exited {done.returncode} after its turns", file=sys.stderr)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    out, at = {}, 0
    for name in [*names, *([GROUP_KEY] if group else [])]:
        out[name] = stub.requests[at:at + counts[name]]
        at += counts[name]
    return out


def pl_child() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile as Upload
    from django.test import Client

    from chat.models import ApiToken

    payload = json.loads(sys.stdin.read())
    user = get_user_model().objects.create_user("side", password="side-password-123")
    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}

    def call(method: str, url: str, body: dict) -> dict:
        answer = getattr(client, method)(url, json.dumps(body), content_type="application/json",
                                         **auth)
        if answer.status_code >= 400:
            raise SystemExit(f"{url}: {answer.status_code} {answer.content[:500]!r}")
        return answer.json()

    persona = call("post", "/api/v1/personas", {"name": PERSONA_NAME, "description": PERSONA,
                                                "default": True})
    counts, character_ids = {}, {}
    for name, card in payload["cards"].items():
        answer = client.post("/api/v1/characters/import", {"file": Upload(
            f"{card['data']['name']}.json", json.dumps(card).encode(),
            content_type="application/json")}, **auth)
        if answer.status_code >= 400:
            raise SystemExit(f"import {name}: {answer.status_code} {answer.content[:500]!r}")
        character_id = answer.json().get("id") or answer.json().get("character_id")
        character_ids[name] = character_id
        if name not in payload["names"]:  # a group member only
            continue
        instance = call("post", "/api/v1/instances", {"character_id": character_id,
                                                       "persona_id": persona.get("id")})
        instance_id = instance.get("id") or instance.get("instance_id")
        if name in SWIPE_GREETING:
            session = next(row for row in client.get(
                f"/api/v1/instances/{instance_id}/sessions", **auth).json()["sessions"]
                if row["current"])
            call("post", f"/api/v1/instances/{instance_id}/sessions/{session['session_id']}"
                 "/swipe", {"turn": 0, "alternative": 0})  # the first alternate greeting
        for text in payload["messages"][name]:
            call("post", "/api/v1/chat", {"instance_id": instance_id, "query": text})
        counts[name] = len(payload["messages"][name])
    if payload["group"]:

        counts[GROUP_KEY] = pl_group_play(call, character_ids, persona.get("id"),
                                          payload["group"])
    print(json.dumps(counts))


def _port_free() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_http(url: str, process: subprocess.Popen, timeout: float) -> None:
    import urllib.request

    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"SillyTavern exited ({process.returncode})")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=5)
            return
        time.sleep(1)
    raise SystemExit("SillyTavern did not start in time")


def main() -> None:
    if "--personalab-child" in sys.argv:
        pl_child()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sillytavern", type=Path, help="a SillyTavern checkout (npm installed)")
    parser.add_argument("--load", type=Path, help="compare the requests a --save wrote instead")
    parser.add_argument("--st-load", type=Path, help="SillyTavern's side from a --save; "
                        "PersonaLab's played again")
    parser.add_argument("--cards", default="amy,brin,cato,dara,eli")
    parser.add_argument("--save", type=Path, help="write both apps' requests to this JSON file")
    parser.add_argument("--st-url", help="use a SillyTavern already running at this URL ...")
    parser.add_argument("--st-data", type=Path, help="... whose --dataRoot is this folder")
    parser.add_argument("--group", default=",".join(GROUP),
                        help="cards played together in one group chat ('' for none)")
    args = parser.parse_args()
    cards = cards_build()
    names = [n for n in args.cards.split(",") if n]
    group = [n for n in args.group.split(",") if n]
    if args.load:
        saved = json.loads(args.load.read_text())
        st, pl = saved["sillytavern"], saved["personalab"]
    elif args.st_load:
        st, pl = json.loads(args.st_load.read_text())["sillytavern"], _capture(
            args, cards, names, group, st_side=False)[1]
    elif args.sillytavern:
        st, pl = _capture(args, cards, names, group)
    else:
        parser.error("--sillytavern or --load is needed")
    if args.save:
        args.save.write_text(json.dumps({"sillytavern": st, "personalab": pl}, indent=1))
    total, table = 0, []
    for name in names:
        lines = compare(name, st[name], pl[name], lore_markers(cards[name]))
        differences = int(lines[-1].split()[0])
        total += differences
        print("\n".join(lines))
        placed = sum(len(placement_of(body)) for body in st[name])
        table.append(f"{name:6} turns={len(st[name])} markers_in_sillytavern={placed} "
                     f"differences={differences}")
    if group and GROUP_KEY in st:
        lines = group_compare(st[GROUP_KEY], pl[GROUP_KEY], cards, group)
        grouped = int(lines[-1].split()[0])
        total += grouped
        print("\n".join(lines))
        table.append(f"group  replies={len(st[GROUP_KEY])} members={'+'.join(group)} "
                     f"differences={grouped}")
    print("\n".join(["== summary", *table]))
    print(f"st_side_by_side cards={len(names)} group={len(group)} differences={total}")


def _capture(args: argparse.Namespace, cards: dict[str, dict], names: list[str],
             group: list[str], st_side: bool = True) -> tuple[dict, dict]:
    stub = StubLLM(default=Reply("A short reply."))
    try:
        running = (args.st_url, args.st_data) if args.st_url and args.st_data else None
        st = st_run(args.sillytavern.resolve(), cards, names, stub, running,
                    group) if st_side else {}
        if args.save and st_side:  # kept even when PersonaLab's side then fails
            args.save.write_text(json.dumps({"sillytavern": st, "personalab": {}}, indent=1))
        stub.reset()
        return st, pl_run(cards, names, stub, group)
    finally:
        stub.stop()


if __name__ == "__main__":
    main()
