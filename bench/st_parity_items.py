"""Issue 32 items 3-8 side by side with SillyTavern 1.12.6: samplers, a Chat Completion preset's
prompts, regex scripts, text completion with instruct templates, a chat with swipes exported
here and imported there, and (8) Continue with Chat Completion and SillyTavern's utility lines
("[Start a new Chat]", "[Example Chat]", the continue nudge; continue_prefill). Inputs are built here from SillyTavern's documented formats.

    .venv/bin/python bench/st_parity_items.py --sillytavern /work/st/st-1.12.6 [--items 3,4,5,6,7,8]
        [--st-url URL --st-data DIR]  (a SillyTavern already running on that data folder)
        [--save both.json] / [--load both.json]  (compare saved requests again, no apps run)

Each scenario sets SillyTavern up the way a user would (its settings file: connection, samplers,
preset prompts, regex scripts, instruct and context templates; the card imported through its
page; messages sent from the input box) and PersonaLab through its REST API (the same card and a
preset / regex scripts / environment), both against one recording stub (tests/stub_llm.py).
Prints, per scenario, what differs in the captured requests (and, for regex scripts, in what
the page shows), and a summary line per item.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import st_side_by_side as side
from request_compare import MARKER, compare, message_text
from st_page import PERSONA, PERSONA_NAME, st_page_ready

from tests import cluster
from tests.browser import CHROMIUM
from tests.stub_llm import Reply, StubLLM


def _card(name: str, **data: Any) -> dict[str, Any]:
    base = {"name": name, "description": f"[{name.upper()}-DESC] {name} keeps a map shop.",
            "personality": "patient", "scenario": "A shop full of maps.",
            "first_mes": f"{name} unrolls a map.", "mes_example": "",
            "tags": [], "creator": "bench", "creator_notes": "", "character_version": "1",
            "alternate_greetings": [], "system_prompt": "", "post_history_instructions": "",
            "extensions": {}}
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {**base, **data}}


# --- item 3: samplers ------------------------------------------------------------------

# A SillyTavern Chat Completion preset's sampler keys (as its preset export writes them).
ST_SAMPLER_PRESET = {"temperature": 0.7, "top_p": 0.9, "frequency_penalty": 0.3,
                     "presence_penalty": 0.2, "top_k": 40, "min_p": 0.05,
                     "repetition_penalty": 1.1, "openai_max_tokens": 500,
                     "openai_max_context": 16384, "seed": 42}
# The same values as SillyTavern's settings file keeps them (oai_settings).
ST_SAMPLER_SETTINGS = {"temp_openai": 0.7, "top_p_openai": 0.9, "freq_pen_openai": 0.3,
                       "pres_pen_openai": 0.2, "top_k_openai": 40, "min_p_openai": 0.05,
                       "repetition_penalty_openai": 1.1, "openai_max_tokens": 500,
                       "openai_max_context": 16384, "seed": 42}
SAMPLER_KEYS = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty",
                "frequency_penalty", "presence_penalty", "max_tokens", "seed", "stop",
                "logit_bias", "n")


# --- item 4: a preset's prompts ----------------------------------------------------------

def _prompt(identifier: str, name: str, content: str, role: str = "system", **extra: Any) -> dict:
    return {"identifier": identifier, "name": name, "role": role, "content": content,
            "system_prompt": False, "marker": False, **extra}


def _marker(identifier: str, name: str) -> dict:
    return {"identifier": identifier, "name": name, "system_prompt": True, "marker": True}


def preset_prompts() -> dict[str, Any]:
    """A Chat Completion preset with custom prompts, a disabled block, a reordered order (an
    auxiliary prompt moved before the character, NSFW switched off), a post-history prompt, a
    prompt after the chat history and one at an absolute depth."""
    prompts = [
        _prompt("main", "Main Prompt", "[MAIN] Write {{char}}'s next reply to {{user}}.",
                system_prompt=True),
        _prompt("nsfw", "Auxiliary Prompt", "[NSFW] This block is switched off.",
                system_prompt=True),
        _prompt("jailbreak", "Post-History Instructions", "[JB] Stay in character.",
                system_prompt=True),
        _prompt("enhanceDefinitions", "Enhance Definitions", "[ENHANCE] Use the lore.",
                system_prompt=True),
        _marker("dialogueExamples", "Chat Examples"), _marker("chatHistory", "Chat History"),
        _marker("worldInfoAfter", "World Info (after)"),
        _marker("worldInfoBefore", "World Info (before)"),
        _marker("charDescription", "Char Description"),
        _marker("charPersonality", "Char Personality"), _marker("scenario", "Scenario"),
        _marker("personaDescription", "Persona Description"),
        _prompt("a1b2c3d4-0000-4000-8000-000000000001", "Style", "[STYLE] Short paragraphs.",
                "user"),
        _prompt("a1b2c3d4-0000-4000-8000-000000000002", "After chat", "[AFTER] Mind the map.",
                "system"),
        _prompt("a1b2c3d4-0000-4000-8000-000000000003", "Deep note", "[DEEP] The shop is old.",
                "assistant", injection_position=1, injection_depth=1),
    ]
    order = [("main", True), ("a1b2c3d4-0000-4000-8000-000000000001", True),
             ("worldInfoBefore", True), ("personaDescription", True),
             ("charDescription", True), ("charPersonality", True), ("scenario", True),
             ("nsfw", False), ("enhanceDefinitions", True), ("worldInfoAfter", True),
             ("dialogueExamples", True), ("chatHistory", True),
             ("a1b2c3d4-0000-4000-8000-000000000002", True), ("jailbreak", True),
             ("a1b2c3d4-0000-4000-8000-000000000003", True)]
    return {"temperature": 1, "openai_max_tokens": 300, "openai_max_context": 16384,
            "prompts": prompts,
            "prompt_order": [{"character_id": 100001, "order": [
                {"identifier": identifier, "enabled": enabled} for identifier, enabled in order]}],
            "impersonation_prompt": "[IMP] Write as {{user}}.", "wi_format": "{0}"}


# --- item 5: regex scripts ---------------------------------------------------------------

def _script(name: str, find: str, replace: str, placement: list[int], **extra: Any) -> dict:
    return {"id": f"00000000-0000-4000-8000-{abs(hash(name)) % 10**12:012d}",
            "scriptName": name, "findRegex": find, "replaceString": replace,
            "trimStrings": [], "placement": placement, "disabled": False,
            "markdownOnly": False, "promptOnly": False, "runOnEdit": True,
            "substituteRegex": 0, "minDepth": None, "maxDepth": None, **extra}


GLOBAL_SCRIPTS = [
    _script("user colour", "/colour/gi", "color", [1]),
    _script("prompt only tag", "/\\[SECRET\\]/g", "[HIDDEN]", [1, 2], promptOnly=True),
    _script("display only", "/lantern/g", "LAMP", [2], markdownOnly=True),
]
CARD_SCRIPTS = [
    _script("ai swap", "/(\\w+) the brave/g", "$1 the bold ({{match}})", [2]),
    _script("trim", "/<b>(.*?)<\\/b>/g", "*$1*", [2], trimStrings=["x"]),
    _script("lore", "/Harbour/g", "Port", [5]),
    _script("deep only", "/old/g", "OLD", [1, 2], promptOnly=True, minDepth=2),
    _script("shallow only", "/map/g", "MAP", [1, 2], promptOnly=True, maxDepth=1),
]
REGEX_REPLIES = ["Tom the brave holds a lantern. <b>xboldx</b> an old map.",
                 "Anna the brave smiles by the lantern, an old map in hand.",
                 "The old map shows the Harbour."]


def regex_card() -> dict:
    return _card("Rex", first_mes="Rex lifts a lantern over an old map.",
                 extensions={"regex_scripts": CARD_SCRIPTS},
                 character_book={"name": "Rex book", "entries": [
                     side._entry(1, ["harbour"], "[HARBOUR] The Harbour is north.")]})


# --- item 6: text completion -------------------------------------------------------------

TEXT_TEMPLATES = {"chatml": "ChatML", "llama3": "Llama 3 Instruct",
                  "mistral": "Mistral V2 & V3", "alpaca": "Alpaca"}


def text_card() -> dict:
    return _card("Tia", personality="careful", scenario="[TIA-SCEN] A rainy harbour.",
                 mes_example="<START>\n{{user}}: Hi.\n{{char}}: [TIA-EX] Hello there.",
                 post_history_instructions="[TIA-PHI] Stay brief.",
                 character_book={"name": "Tia book", "entries": [
                     side._entry(1, ["rain"], "[RAIN] It always rains here.")]})


def group_card(name: str) -> dict:
    return _card(name, description=f"[{name}-DESC] {name} sells tea.")


# --- item 8: Continue and SillyTavern's utility lines (new chat, example chat) -----------------

def utility_card() -> dict:
    return _card("Uma", mes_example="<START>\n{{user}}: Hi.\n{{char}}: [UMA-EX1] Hello.\n"
                                    "<START>\n{{user}}: Bye.\n{{char}}: [UMA-EX2] Farewell.",
                 post_history_instructions="[UMA-PHI] Stay brief.",
                 extensions={"depth_prompt": {"prompt": "[UMA-NOTE] Uma hums.", "depth": 0,
                                              "role": "system"}})


CONTINUE_REPLIES = ["Uma rolls the map and", "and ties it with string."]


# --- scenarios -----------------------------------------------------------------------------

def scenarios(st_root: Path | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    plain = _card("Sam")
    out.append({"item": 3, "name": "samplers-default", "card": plain,
                "messages": ["Hello."], "st_oai": {}, "pl": {}})
    out.append({"item": 3, "name": "samplers-preset", "card": plain, "messages": ["Hello."],
                "st_oai": ST_SAMPLER_SETTINGS, "pl": {"preset": ST_SAMPLER_PRESET}})
    preset = preset_prompts()
    st_oai = {"prompts": preset["prompts"], "prompt_order": preset["prompt_order"],
              "temp_openai": 1, "openai_max_tokens": 300}
    out.append({"item": 4, "name": "preset-prompts", "card": _card("Pia"),
                "messages": ["Show me the map.", "And the harbour?"], "st_oai": st_oai,
                "pl": {"preset": preset}})
    out.append({"item": 5, "name": "regex-scripts", "card": regex_card(),
                "messages": ["What colour is the [SECRET] map?", "Tell me about the harbour.",
                             "Thanks."],
                "replies": REGEX_REPLIES, "st_extensions": {"regex": GLOBAL_SCRIPTS},
                "st_allow_card_regex": True,
                "pl": {"account_regex": GLOBAL_SCRIPTS, "allow_card_regex": True,
                       "display": True}})
    for key, st_name in TEXT_TEMPLATES.items():
        instruct = context = None
        if st_root is not None:
            content = st_root / "default" / "content" / "presets"
            instruct = json.loads((content / "instruct" / f"{st_name}.json").read_text())
            context = json.loads((content / "context" / "Default.json").read_text())
        out.append({"item": 6, "name": f"text-{key}", "card": text_card(),
                    "messages": ["Is it raining?", "Tell me more."], "text": True,
                    "st_instruct": instruct, "st_context": context,
                    "pl": {"env": {"PERSONALAB_COMPLETION_API": "text",
                                   "PERSONALAB_INSTRUCT_TEMPLATE": key}}})
    if st_root is not None:
        # A context template that allows post-history instructions (SillyTavern's
        # allow_jailbreak): written to a file PersonaLab reads as PERSONALAB_CONTEXT_TEMPLATE.
        content = st_root / "default" / "content" / "presets"
        context = {**json.loads((content / "context" / "Default.json").read_text()),
                   "allow_jailbreak": True, "name": "Default-JB"}
        path = Path(tempfile.gettempdir()) / "st-parity-context-jb.json"
        path.write_text(json.dumps(context))
        out.append({"item": 6, "name": "text-chatml-jailbreak", "card": text_card(),
                    "messages": ["Is it raining?"], "text": True,
                    "st_instruct": json.loads((content / "instruct" / "ChatML.json").read_text()),
                    "st_context": context,
                    "pl": {"env": {"PERSONALAB_COMPLETION_API": "text",
                                   "PERSONALAB_INSTRUCT_TEMPLATE": "chatml",
                                   "PERSONALAB_CONTEXT_TEMPLATE": str(path)}}})
    for name, prefill in (("continue", False), ("continue-prefill", True)):
        out.append({"item": 8, "name": name, "card": utility_card(), "messages": ["Show me."],
                    "replies": CONTINUE_REPLIES, "continue": True,
                    "st_oai": {"continue_prefill": prefill},
                    "pl": {"continue": True,
                           **({"preset": {"continue_prefill": True}} if prefill else {})}})
    out.append({"item": 7, "name": "swipe-info", "card": _card("Wes"),
                "messages": ["Hi."], "pl": {"swipes": 2, "export": True}, "st_import": True})
    return out


# --- SillyTavern side ------------------------------------------------------------------------

def st_prepare(data: Path, stub: StubLLM, scenario: dict[str, Any], pristine: dict) -> None:
    path = data / "default-user" / "settings.json"
    path.write_text(json.dumps(pristine))
    side.st_settings(data, stub.base_url)
    settings = json.loads(path.read_text())
    settings["oai_settings"].update(copy.deepcopy(scenario.get("st_oai") or {}))
    power = settings["power_user"]
    # The System Prompt stays as a fresh install has it ("Neutral - Chat", on): PersonaLab's
    # text prompts start with it since 2026-12-03 (docs/decisions/default-main-prompt.md).
    power["prefer_character_prompt"] = True
    power["prefer_character_jailbreak"] = True
    extensions = settings.setdefault("extension_settings", {})
    extensions.update(copy.deepcopy(scenario.get("st_extensions") or {"regex": []}))
    if scenario.get("st_allow_card_regex"):
        # SillyTavern asks once per card whether its embedded scripts may run; answered yes
        # beforehand for the file names its import may give the card (Rex.png, Rex1.png, ...).
        name = scenario["card"]["data"]["name"]
        extensions["character_allowed_regex"] = [f"{name}{n}.png" for n in ("", *range(1, 30))]
    if scenario.get("text"):
        settings["main_api"] = "textgenerationwebui"
        textgen = settings["textgenerationwebui_settings"]
        textgen.update({"type": "ooba", "streaming": False,
                        "server_urls": {"ooba": stub.base_url.removesuffix("/v1")}})
        settings["amount_gen"] = 300
        settings["max_context"] = 16384
        power["instruct"] = {**scenario["st_instruct"], "enabled": True,
                             "preset": scenario["st_instruct"]["name"]}
        power["context"] = {**scenario["st_context"], "preset": scenario["st_context"]["name"]}
    path.write_text(json.dumps(settings, indent=2))


def st_scenario(page: Any, url: str, data: Path, stub: StubLLM, scenario: dict[str, Any],
                pristine: dict) -> dict[str, Any]:
    page.goto("about:blank")  # no save of the page's settings over the file written next
    time.sleep(1)
    st_prepare(data, stub, scenario, pristine)
    page.goto(url)
    st_page_ready(page)
    result: dict[str, Any] = {}
    if scenario.get("st_import"):
        return result  # item 7 imports PersonaLab's export instead, see st_import_chat
    replies = scenario.get("replies")
    if replies:
        stub.script(*[Reply(text) for text in replies])
    card = scenario["card"]
    result["requests"] = side.st_card_play(page, card, scenario["messages"], stub, {})
    if scenario.get("continue"):
        result["requests"].append(st_continue(page, stub))
    result["paths"] = list(stub.paths)
    if scenario["pl"].get("display"):
        result["display"] = page.evaluate(
            "() => [...document.querySelectorAll('#chat .mes .mes_text')].map(e => e.innerText)")
        result["stored"] = page.evaluate(
            "() => SillyTavern.getContext().chat.map(m => m.mes)")
    return result


def st_continue(page: Any, stub: StubLLM) -> dict:
    """The options menu's Continue (what the -> button does), its request captured."""
    before = len(stub.requests)
    page.evaluate("() => $('#option_continue').trigger('click')")
    deadline = time.time() + 120
    while len(stub.requests) <= before and time.time() < deadline:
        time.sleep(0.2)
    page.wait_for_function("!document.querySelector('#send_but').classList.contains('displayNone')",
                           timeout=120_000)
    return stub.requests[before] if len(stub.requests) > before else {}


def st_import_chat(page: Any, url: str, data: Path, card: dict, jsonl: str) -> dict[str, Any]:
    """Item 7: the card imported, then the chat file through SillyTavern's own chat import
    (More... -> Import chat does the same request); the chats it then holds, read from its
    data folder as its page reads them."""
    headers_js = ("const ctx = SillyTavern.getContext(); const headers = ctx.getRequestHeaders();"
                  " delete headers['Content-Type'];")
    made = page.evaluate("""async (card) => {""" + headers_js + """
        const form = new FormData();
        form.append('avatar', new File([JSON.stringify(card)], card.data.name + '.json',
                                       {type: 'application/json'}));
        form.append('file_type', 'json');
        const answer = await fetch('/api/characters/import', {method: 'POST', headers, body: form});
        return await answer.json();
    }""", card)
    # Opening a character in the page makes its chat folder; the import route needs it.
    chats = data / "default-user" / "chats" / made["file_name"]
    chats.mkdir(parents=True, exist_ok=True)
    result = page.evaluate("""async ([jsonl, avatar, name]) => {""" + headers_js + """
        const form = new FormData();
        form.append('avatar', new File([jsonl], 'chat.jsonl', {type: 'application/octet-stream'}));
        form.append('file_type', 'jsonl');
        form.append('avatar_url', avatar);
        form.append('character_name', name);
        form.append('user_name', 'Alex');
        const answer = await fetch('/api/chats/import', {method: 'POST', headers, body: form});
        return answer.status + ' ' + await answer.text();
    }""", [jsonl, made["file_name"] + ".png", card["data"]["name"]])
    print(f"SillyTavern chat import of {card['data']['name']}: {result}", file=sys.stderr)
    loaded = [[json.loads(line) for line in path.read_text().splitlines() if line.strip()]
              for path in sorted(chats.glob("*.jsonl"))]
    return {"import": result, "chats": loaded}


# --- PersonaLab side ------------------------------------------------------------------------

def pl_scenario(scenario: dict[str, Any], stub: StubLLM) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="pl-items-"))
    extra = scenario["pl"].get("env") or {}
    env = cluster.worker_env(data, OPENAI_BASE_URL=stub.base_url, OPENAI_API_KEY="bench-key",
                             PERSONALAB_MODEL="stub-model", PERSONALAB_CONTEXT_TOKENS="16384",
                             **extra)
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=REPO, env=env, check=True)
        replies = scenario.get("replies")
        before = len(stub.requests)
        if replies:
            stub.script(*[Reply(text) for text in replies])
        done = subprocess.run([sys.executable, __file__, "--personalab-child"], check=False,
                              cwd=REPO, env=env, input=json.dumps(scenario), text=True,
                              capture_output=True)
        if done.returncode:
            raise SystemExit(f"PersonaLab side failed ({done.returncode}):\n{done.stderr[-6000:]}\n{done.stdout[-2000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(data, ignore_errors=True)
    result["requests"] = stub.requests[before:]
    result["paths"] = stub.paths[before:]
    return result


def pl_child() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client

    from chat.models import ApiToken

    scenario = json.loads(sys.stdin.read())
    options = scenario["pl"]
    user = get_user_model().objects.create_user("side", password="side-password-123")
    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}

    def call(method: str, url: str, body: Any = None) -> Any:
        if method == "get":
            answer = client.get(url, **auth)
        else:
            answer = getattr(client, method)(url, json.dumps(body), content_type="application/json",
                                             **auth)
        if answer.status_code >= 400:
            raise SystemExit(f"{url}: {answer.status_code} {answer.content[:800]!r}")
        return answer.json() if answer.get("Content-Type", "").startswith("application/json") \
            else answer.content.decode()

    persona = call("post", "/api/v1/personas", {"name": PERSONA_NAME, "description": PERSONA,
                                                "default": True})
    if options.get("account_regex"):
        call("put", "/api/v1/regex-scripts", {"scripts": options["account_regex"]})
    card = scenario["card"]
    upload = SimpleUploadedFile(f"{card['data']['name']}.json", json.dumps(card).encode(),
                                content_type="application/json")
    answer = client.post("/api/v1/characters/import", {"file": upload}, **auth)
    if answer.status_code >= 400:
        raise SystemExit(f"import: {answer.status_code} {answer.content[:500]!r}")
    character_id = answer.json().get("id") or answer.json().get("character_id")
    if options.get("allow_card_regex"):
        call("put", f"/api/v1/characters/{character_id}", {"regex_scripts_allowed": True})
    instance = call("post", "/api/v1/instances", {"character_id": character_id,
                                                   "persona_id": persona.get("id")})
    instance_id = instance.get("id") or instance.get("instance_id")
    result: dict[str, Any] = {}
    if options.get("preset"):
        result["preset_import"] = call("post", f"/api/v1/instances/{instance_id}/generation/preset",
                                       options["preset"])
        result["preset_export"] = call("get", f"/api/v1/instances/{instance_id}/generation/preset")
    for text in scenario["messages"]:
        call("post", "/api/v1/chat", {"instance_id": instance_id, "query": text})
    if options.get("continue"):
        call("post", f"/api/v1/instances/{instance_id}/continue", {})
    sessions = call("get", f"/api/v1/instances/{instance_id}/sessions")["sessions"]
    session_id = next(row for row in sessions if row["current"])["session_id"]
    for _ in range(options.get("swipes", 0)):
        call("post", f"/api/v1/instances/{instance_id}/regenerate", {})
    if options.get("export") or options.get("display"):
        answer = client.get(f"/api/v1/instances/{instance_id}/sessions/{session_id}/export"
                            "?format=jsonl", **auth)
        result["export"] = answer.content.decode()
    if options.get("display"):
        result["stored"] = [json.loads(line).get("mes") for line in
                            result["export"].splitlines()[1:] if line.strip()]
        client.force_login(user)
        result["page"] = client.get(f"/instances/{instance_id}/").content.decode()
    print(json.dumps(result))


# --- comparison ------------------------------------------------------------------------------

def compare_samplers(st: dict, pl: dict) -> list[str]:
    lines = []
    for index, (a, b) in enumerate(zip(st["requests"], pl["requests"]), start=1):
        for key in SAMPLER_KEYS:
            va, vb = a.get(key), b.get(key)
            if va in ({}, None) and vb in ({}, None):
                continue
            if va != vb:
                lines.append(f"   turn {index} {key}: SillyTavern {va!r}, PersonaLab {vb!r}")
    return lines


def _messages(body: dict) -> list[tuple[str, str]]:
    return [(m.get("role", "?"), message_text(m)) for m in body.get("messages") or []]


def _marker_seq(body: dict) -> list[tuple[str, str]]:
    """Each [MARKER] in a request in order, with the role of the message that holds it."""
    return [(marker, role) for role, text in _messages(body)
            for marker in MARKER.findall(text)]


def compare_prompts(st: dict, pl: dict) -> list[str]:
    lines = []
    for index, (a, b) in enumerate(zip(st["requests"], pl["requests"]), start=1):
        sa, sb = _marker_seq(a), _marker_seq(b)
        if sa != sb:
            lines.append(f"   turn {index} markers: SillyTavern {sa}")
            lines.append(f"   turn {index} markers: PersonaLab  {sb}")
        lines.extend(compare("turn", [a], [b])[2:-1] if sa != sb else [])
        ra = [role for role, _ in _messages(a) if role != "system"]
        rb = [role for role, _ in _messages(b) if role != "system"]
        if ra != rb:
            lines.append(f"   turn {index} roles outside system: SillyTavern {ra}, PersonaLab {rb}")
    exported = (pl.get("preset_export") or {}).get("prompt_order")
    if exported:  # export: the same order as the preset imported (SillyTavern's own file)
        want = [e["identifier"] for e in preset_prompts()["prompt_order"][0]["order"]]
        got = [e["identifier"] for e in exported[0]["order"]]
        if got != want:
            lines.append(f"   export prompt_order: imported {want}")
            lines.append(f"   export prompt_order: exported {got}")
    return lines


def compare_text(st: dict, pl: dict) -> list[str]:
    lines = []
    for index, (a, b) in enumerate(zip(st["requests"], pl["requests"]), start=1):
        pa, pb = a.get("prompt"), b.get("prompt")
        if pa != pb:
            lines.append(f"   turn {index} prompt differs:")
            lines.append("     SillyTavern " + json.dumps(pa))
            lines.append("     PersonaLab  " + json.dumps(pb))
        stop_a = a.get("stop") or a.get("stopping_strings")
        if sorted(stop_a or []) != sorted(b.get("stop") or []):
            lines.append(f"   turn {index} stop: SillyTavern {stop_a!r}, PersonaLab "
                         f"{b.get('stop')!r}")
    return lines


def compare_regex(st: dict, pl: dict) -> list[str]:
    lines = []
    for index, (a, b) in enumerate(zip(st["requests"], pl["requests"]), start=1):
        ma = [(r, t) for r, t in _messages(a) if r != "system"]
        mb = [(r, t) for r, t in _messages(b) if r != "system"]
        if ma != mb:
            lines.append(f"   turn {index} chat messages differ:")
            lines.append(f"     SillyTavern {ma}")
            lines.append(f"     PersonaLab  {mb}")
        la = [m for m in MARKER.findall(json.dumps(a)) if m not in ("[SECRET]",)]
        lb = [m for m in MARKER.findall(json.dumps(b)) if m not in ("[SECRET]",)]
        if set(la) != set(lb):
            lines.append(f"   turn {index} markers: SillyTavern {sorted(set(la))}, "
                         f"PersonaLab {sorted(set(lb))}")
        wa = " ".join(t for _, t in _messages(a))
        wb = " ".join(t for _, t in _messages(b))
        for word in ("Port", "Harbour"):
            if (word in wa) != (word in wb):
                lines.append(f"   turn {index} lore '{word}': SillyTavern {word in wa}, "
                             f"PersonaLab {word in wb}")
    shown_st = [" ".join(t.split()) for t in st.get("display") or []]
    shown_pl = pl_display(pl.get("page", ""), len(shown_st))
    if shown_st != shown_pl:
        lines.append(f"   page shows: SillyTavern {shown_st}")
        lines.append(f"   page shows: PersonaLab  {shown_pl}")
    if [" ".join(t.split()) for t in st.get("stored") or []] != \
            [" ".join((t or "").split()) for t in pl.get("stored") or []]:
        lines.append(f"   stored: SillyTavern {st.get('stored')}")
        lines.append(f"   stored: PersonaLab  {pl.get('stored')}")
    return lines


def pl_display(page: str, count: int) -> list[str]:
    """The message texts the chat page shows (its message bodies, tags stripped)."""
    import html

    bodies = re.findall(r'<div class="text md"[^>]*>(.*?)</div>', page, re.DOTALL)
    # The page renders markdown in the browser: asterisks become emphasis, as SillyTavern shows.
    texts = [" ".join(html.unescape(re.sub(r"<[^>]+>", "", body)).replace("*", "").split())
             for body in bodies]
    return texts[-count:] if count else texts


def compare_swipes(st: dict, pl: dict) -> list[str]:
    lines = []
    exported = [json.loads(line) for line in pl.get("export", "").splitlines() if line.strip()]
    want = [m for m in exported[1:] if not m.get("is_user") and m.get("swipes")]
    chats = st.get("chats") or []
    got = [m for chat in chats for m in chat[1:] if isinstance(m, dict)
           and not m.get("is_user") and m.get("swipes")]
    if not chats:
        return [f"   SillyTavern has no chat after the import: {st.get('import')}"]
    for a, b in zip(want, got):
        if a.get("swipes") != b.get("swipes"):
            lines.append(f"   swipes: PersonaLab export {a.get('swipes')}, SillyTavern {b.get('swipes')}")
        dates_a = [s.get("send_date") for s in a.get("swipe_info") or []]
        dates_b = [s.get("send_date") for s in b.get("swipe_info") or []]
        if dates_a != dates_b or len(dates_b) != len(b.get("swipes") or []):
            lines.append(f"   swipe dates: PersonaLab export {dates_a}, SillyTavern {dates_b}")
    if len(want) != len(got):
        lines.append(f"   messages with swipes: PersonaLab {len(want)}, SillyTavern {len(got)}")
    return lines


UTILITY_LINES = ("[Start a new", "[Example Chat]", "[Continue the following")


def _after_head(body: dict) -> list[tuple[str, str]]:
    """A request's messages from SillyTavern's new-chat line on (or from the first message
    that is not a system one): the chat history, its notes and what follows it. What comes
    before is the system part, one message here, one per prompt there (compared by item 4)."""
    messages = _messages(body)
    start = next((i for i, (_, text) in enumerate(messages) if text.startswith("[Start a new")),
                 None)
    if start is None:
        start = next((i for i, (role, _) in enumerate(messages) if role != "system"),
                     len(messages))
    return [(role, " ".join(text.split())) for role, text in messages[start:]]


def compare_utility(st: dict, pl: dict) -> list[str]:
    lines = []
    for index, (a, b) in enumerate(zip(st["requests"], pl["requests"]), start=1):
        ta, tb = _after_head(a), _after_head(b)
        if ta != tb:
            lines.append(f"   turn {index} history and after:")
            lines.append(f"     SillyTavern {ta}")
            lines.append(f"     PersonaLab  {tb}")
        for line in UTILITY_LINES:
            ca = sum(text.count(line) for _, text in _messages(a))
            cb = sum(text.count(line) for _, text in _messages(b))
            if ca != cb:
                lines.append(f"   turn {index} {line!r} sent: SillyTavern {ca}x, PersonaLab {cb}x")
    return lines


COMPARE = {3: compare_samplers, 4: compare_prompts, 5: compare_regex, 6: compare_text,
           7: compare_swipes, 8: compare_utility}


# --- driver ----------------------------------------------------------------------------------

def run_all(args: argparse.Namespace, chosen: list[dict[str, Any]]) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    stub = StubLLM(default=Reply("A short reply."))
    process = None
    results: dict[str, Any] = {}
    try:
        if args.st_url:
            url, data = args.st_url, args.st_data
        else:
            port = side._port_free()
            data = Path(tempfile.mkdtemp(prefix="st-items-"))
            log = open(data / "st.log", "w")  # noqa: SIM115 (the child's whole life)
            process = subprocess.Popen(
                ["nice", "-n", "15", "node", "server.js", "--port", str(port), "--dataRoot",
                 str(data), "--listen", "false", "--whitelist", "false", "--autorun", "false",
                 "--basicAuthMode", "false"], cwd=args.sillytavern, stdout=log,
                stderr=subprocess.STDOUT)
            url = f"http://127.0.0.1:{port}/"
            side._wait_http(url, process, 900)
        pristine_path = data / "pristine-settings.json"
        if not pristine_path.exists():
            shutil.copy(data / "default-user" / "settings.json", pristine_path)
        pristine = json.loads(pristine_path.read_text())
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path=str(CHROMIUM), args=[
                "--no-sandbox", "--disable-background-networking", "--disable-component-update"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            for scenario in chosen:
                stub.reset()
                pl = pl_scenario(scenario, stub)
                stub.reset()
                st = st_scenario(page, url, data, stub, scenario, pristine)
                if scenario.get("st_import"):
                    st = st_import_chat(page, url, data, scenario["card"], pl.get("export", ""))
                results[scenario["name"]] = {"sillytavern": st, "personalab": pl}
                if args.save:  # kept as each scenario ends: a later failure loses nothing
                    args.save.write_text(json.dumps(results, indent=1))
            browser.close()
    finally:
        stub.stop()
        if process is not None:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
    return results


def main() -> None:
    if "--personalab-child" in sys.argv:
        pl_child()
        # The child's interpreter teardown segfaults in a native extension (no Python frame;
        # grpc's among those loaded) after its result is printed, on 57fc1d6 too: the result is
        # whole, so the child leaves without the teardown.
        sys.stdout.flush()
        os._exit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sillytavern", type=Path, default=Path("/work/st/st-1.12.6"))
    parser.add_argument("--items", default="3,4,5,6,7,8")
    parser.add_argument("--only", default="", help="scenario names, comma separated")
    parser.add_argument("--st-url")
    parser.add_argument("--st-data", type=Path)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--load", type=Path)
    args = parser.parse_args()
    items = {int(i) for i in args.items.split(",") if i}
    chosen = [s for s in scenarios(args.sillytavern) if s["item"] in items
              and (not args.only or s["name"] in args.only.split(","))]
    if args.load:
        results = json.loads(args.load.read_text())
    else:
        results = run_all(args, chosen)
    if args.save:
        args.save.write_text(json.dumps(results, indent=1))
    per_item: dict[int, int] = {}
    for scenario in chosen:
        both = results.get(scenario["name"])
        if both is None:
            continue
        lines = COMPARE[scenario["item"]](both["sillytavern"], both["personalab"])
        print(f"== item {scenario['item']} {scenario['name']}: {len(lines)} difference line(s)")
        print("\n".join(lines))
        per_item[scenario["item"]] = per_item.get(scenario["item"], 0) + len(lines)
    print("== summary")
    for item, count in sorted(per_item.items()):
        print(f"item {item}: {count} difference line(s)")


if __name__ == "__main__":
    main()
