"""Shared by the import sweeps (tests/library/test_import_fuzz_cards.py, test_import_fuzz_lorebooks.py,
tests/chat/test_import_fuzz_chats.py, …_chats_json.py): realistic cards, lorebooks and chats of other apps (SillyTavern,
RisuAI, Chub, Agnai), each field replaced by a value of another type, uploaded for real; the answer is
a 2xx or a 4xx that names the problem, never a 500, and what imported opens and plays one turn.

The sweep is table-driven and deterministic: every field of every base file is replaced once,
each odd value lands on many fields. PERSONALAB_FUZZ_FULL=1 replaces every field with every
value (minutes, not for `make test`). Three files, so that the sweeps run on different cores."""

from __future__ import annotations

import io
import json
import os
import traceback
import zipfile
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken
from tests.library.browser_forms import lorebook_form_submit
from tests.png_files import text_chunk, tiny_png

LONG = "長" * 100_000
DEEP: list[Any] = []
for _ in range(80):  # past the 64 levels a file may nest
    DEEP = [DEEP]
ODD_VALUES: list[Any] = [None, True, 0, -1, 1e308, 2**80, "", LONG, [], {}, [[1, [2, []]], {}],
                         float("inf"), float("nan"), DEEP]
FULL = os.environ.get("PERSONALAB_FUZZ_FULL") == "1"
ROTATION_STEP = 7  # prime to len(ODD_VALUES) + 1 (a test checks it)
Path = tuple[Any, ...]


def _swapped(value: Any) -> Any:
    """A string where a list is expected and the other way round (and alike for the rest)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return [value]
    return str(value)


def _paths(doc: Any, prefix: Path = ()) -> Iterator[Path]:
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) \
        else ()
    for key, value in items:
        yield (*prefix, key)
        yield from _paths(value, (*prefix, key))


def replaced(doc: Any, path: Path, value: Any) -> Any:
    copy = json.loads(json.dumps(doc))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy


def _value_at(doc: Any, path: Path) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def mutations(doc: Any) -> list[tuple[Path, Any]]:
    """(path, odd value): all pairs when FULL, else each path once, the values rotating by a
    step that shares no factor with their number, so that every value is reached (a step of 5
    reached 3 of the 15 once DEEP made them 15: no huge text, no deep nesting)."""
    found = []
    for index, path in enumerate(_paths(doc)):
        values = [*ODD_VALUES, _swapped(_value_at(doc, path))]
        picked = values if FULL else [values[(index * ROTATION_STEP) % len(values)]]
        found.extend((path, value) for value in picked)
    return found


def _card_v2() -> dict:
    """As SillyTavern exports it: V1 mirror fields, data, a character_book with ST extensions."""
    data = {
        "name": "Mira", "description": "A field medic in a drowned city.",
        "personality": "calm", "scenario": "The flood.", "first_mes": "Hold still, {{user}}.",
        "mes_example": "<START>\n{{char}}: Breathe.", "creator_notes": "", "system_prompt": "",
        "post_history_instructions": "", "alternate_greetings": ["You made it."],
        "tags": ["medic", "flood"], "creator": "someone", "character_version": "2",
        "extensions": {"talkativeness": "0.5", "fav": False, "world": "Mira's world",
                       "depth_prompt": {"prompt": "Stay calm.", "depth": 4, "role": "system"}},
        "character_book": {"name": "Mira's world", "scan_depth": 4, "token_budget": 512,
                           "recursive_scanning": False, "extensions": {}, "entries": [
                               {"id": 0, "keys": ["tower"], "secondary_keys": ["flood"],
                                "content": "The tower is flooded to the fifth floor.",
                                "enabled": True, "insertion_order": 10, "case_sensitive": False,
                                "constant": False, "selective": True, "position": "before_char",
                                "use_regex": False, "comment": "tower", "extensions": {
                                    "position": 4, "depth": 2, "role": 1, "selectiveLogic": 0,
                                    "probability": 100, "useProbability": True, "group": "",
                                    "sticky": 0, "cooldown": 0, "delay": 0,
                                    "exclude_recursion": False, "match_whole_words": None}}]}}
    return {"name": "Mira", "description": data["description"], "personality": "calm",
            "scenario": "The flood.", "first_mes": data["first_mes"],
            "mes_example": data["mes_example"], "creatorcomment": "", "avatar": "none",
            "talkativeness": "0.5", "fav": False, "tags": ["medic", "flood"],
            "spec": "chara_card_v2", "spec_version": "2.0", "data": data,
            "create_date": "2024-5-12 @17h 41m 53s 343ms"}


def _card_v3() -> dict:
    """RisuAI / Chub V3: assets, decorators in entry content, multilingual notes."""
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Ren", "nickname": "R", "description": "An archivist.", "personality": "dry",
        "scenario": "", "first_mes": "Quiet, please.", "mes_example": "",
        "alternate_greetings": [], "group_only_greetings": ["Ren nods."], "tags": [],
        "creator": "", "character_version": "", "creator_notes": "",
        "creator_notes_multilingual": {"en": "notes"}, "source": ["https://example.invalid"],
        "creation_date": 1700000000, "modification_date": 1700000001,
        "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
        "extensions": {"risuai": {"bias": [["a", 1]], "viewScreen": "none"}},
        "character_book": {"entries": [
            {"keys": ["archive"], "content": "@@depth 2\nThe archive burned.", "enabled": True,
             "insertion_order": 100, "use_regex": False, "extensions": {}},
            {"keys": ["/arch.+/i"], "content": "Regex lore.", "enabled": True,
             "insertion_order": 1, "use_regex": True, "constant": True, "extensions": {}}]}}}


def _card_v1() -> dict:
    return {"name": "Old", "description": "TavernAI card.", "personality": "", "scenario": "",
            "first_mes": "Hello.", "mes_example": "", "char_persona": "x", "char_greeting": "y"}


def _card_pygmalion() -> dict:
    return {"char_name": "Pyg", "char_persona": "Old format.", "world_scenario": "",
            "char_greeting": "Hi.", "example_dialogue": "", "metadata": {"version": 1}}


def _card_agnai() -> dict:
    """Agnai's own character JSON (a W++ persona, a memory book, a Character's Note)."""
    return {"kind": "character", "name": "Kae", "description": "notes",
            "persona": {"kind": "wpp", "attributes": {"mind": ["wary", "loyal"]}},
            "greeting": "You're late.", "scenario": "The harbor.", "sampleChat": "",
            "alternateGreetings": ["Quiet."], "systemPrompt": "", "tags": ["ranger"],
            "characterBook": {"kind": "memory", "name": "Salt", "entries": [
                {"name": "L", "entry": "Dark.", "keywords": ["lighthouse"], "priority": 1,
                 "weight": 1, "enabled": True}]},
            "insert": {"depth": 2, "prompt": "Hurt."}, "extensions": {}}


def _st_world() -> dict:
    return {"entries": {"0": {
        "uid": 0, "key": ["tower"], "keysecondary": [], "comment": "tower",
        "content": "The tower is flooded.", "constant": False, "vectorized": False,
        "selective": True, "selectiveLogic": 0, "addMemo": True, "order": 100, "position": 4,
        "disable": False, "excludeRecursion": False, "preventRecursion": False,
        "delayUntilRecursion": False, "probability": 100, "useProbability": True, "depth": 4,
        "group": "", "groupOverride": False, "groupWeight": 100, "scanDepth": None,
        "caseSensitive": None, "matchWholeWords": None, "useGroupScoring": None,
        "automationId": "", "role": None, "sticky": 0, "cooldown": 0, "delay": 0,
        "displayIndex": 0, "characterFilter": {"isExclude": False, "names": [], "tags": []},
        "triggers": []}}, "name": "World"}


def _book_list() -> dict:
    """A character_book on its own (entries as a list), as Chub's lorebook download."""
    return {"name": "Book", "description": "", "scan_depth": 3, "recursive_scanning": True,
            "entries": [{"keys": ["tower", "spire"], "content": "Tall.", "enabled": True,
                         "insertion_order": 5, "priority": 3, "name": "spire", "id": 7,
                         "extensions": {"position": 1}}]}


def _st_world_list() -> dict:
    """World info whose entries are a list (older SillyTavern files and other tools)."""
    world = _st_world()
    return {**world, "entries": [{**world["entries"]["0"], "uid": 3}]}


def _agnai_memory() -> dict:
    return {"kind": "memory", "name": "Agnai book", "description": "", "userId": "u1",
            "entries": [{"name": "tower", "entry": "The tower is flooded.",
                         "keywords": ["tower"], "priority": 10, "weight": 5,
                         "enabled": True}]}


def _risu_lorebook() -> dict:
    return {"type": "risu", "ver": 1, "data": [
        {"key": "tower, spire", "secondkey": "", "insertorder": 100, "comment": "tower",
         "content": "The tower is flooded.", "mode": "normal", "alwaysActive": False,
         "selective": False, "useRegex": False, "extentions": {"risu_case_sensitive": False}}]}


def _novel_lorebook() -> dict:
    return {"lorebookVersion": 5, "entries": [
        {"text": "The tower is flooded.", "keys": ["tower"], "displayName": "tower",
         "enabled": True, "contextConfig": {"prefix": "", "suffix": "\n", "tokenBudget": 2048,
                                            "budgetPriority": 400, "insertionPosition": -1}}],
        "settings": {"orderByKeyLocations": False}, "categories": []}


def st_chat() -> list[dict]:
    """A SillyTavern group chat: header, greeting, a hidden message, swipes, a narrator line."""
    return [
        {"user_name": "Ann", "character_name": "Alserqi", "create_date": "2024-01-01@10h00m00s",
         "chat_metadata": {"note_prompt": "", "note_depth": 4, "tainted": True,
                           "personalab_group": {"members": [{"character_id": "char_x",
                                                             "name": "X"}]}}},
        {"name": "Alserqi", "is_user": False, "is_system": False, "send_date": 1704103200000,
         "mes": "Welcome.", "extra": {}, "swipes": ["Welcome.", "Hi."], "swipe_id": 0,
         "swipe_info": [{"send_date": "x", "extra": {}}, {}]},
        {"name": "Ann", "is_user": True, "is_system": False,
         "send_date": "January 1, 2024 10:01am", "mes": "Where is the tower?",
         "extra": {"bias": None}, "force_avatar": "a.png"},
        {"name": "Alserqi", "is_user": False, "is_system": True, "send_date": "2024-01-01",
         "mes": "(hidden)", "extra": {"reasoning": "thinking", "api": "openai", "model": "m"}},
        {"name": "Narrator", "is_user": False, "is_system": True, "send_date": "2024-01-01",
         "mes": "Rain falls.", "extra": {"type": "narrator"}},
        {"name": "Brenna", "is_user": False, "is_system": False, "mes": "North.", "extra": {},
         "gen_started": "2024-01-01T10:00:00.000Z", "original_avatar": "b.png"},
    ]


def agnai_chat() -> dict:
    return {"name": "Chat", "characterName": "Alserqi", "createdAt": "2024-01-01T00:00:00Z",
            "messages": [
                {"_id": "1", "kind": "chat-message", "msg": "Hi.", "characterId": "c1",
                 "createdAt": "2024-01-01T00:00:01Z"},
                {"_id": "2", "kind": "chat-message", "msg": "Hello.", "userId": "u1",
                 "handle": "Ann", "createdAt": "2024-01-01T00:00:02Z"}]}


def risu_chat() -> dict:
    return {"type": "risuChat", "ver": 2, "folders": [], "data": {
        "name": "Chat 1", "note": "[fog]", "localLore": [], "fmIndex": -1, "id": "c-1",
        "message": [
            {"role": "user", "data": "Hi.", "chatId": "m1", "time": 1718000000000},
            {"role": "char", "data": "Hello.", "chatId": "m2", "time": 1718000060000,
             "saying": "ch-1", "generationInfo": {"model": "x", "inputTokens": 3}},
            {"role": "user", "data": "(ooc)", "chatId": "m3", "disabled": True,
             "isComment": False}]}}


def png_body(doc: Any) -> bytes:
    return tiny_png(text_chunk("ccv3" if doc.get("spec") == "chara_card_v3" else "chara", doc))


def charx_body(doc: Any) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("card.json", json.dumps(doc, ensure_ascii=False))
    return buffer.getvalue()


def jsonl_body(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def json_body(doc: Any) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


class Sweep:
    """Uploads each variant and records what went wrong, so one run shows every failure."""

    def __init__(self, client, auth: dict[str, str], store, use_stub) -> None:
        self.client, self.auth, self.store, self.stub = client, auth, store, use_stub
        self.failures: list[str] = []
        self.imported = 0

    def _call(self, what: str, method: str, url: str, **kwargs) -> Any:
        try:
            response = getattr(self.client, method)(url, **kwargs, **self.auth)
        except Exception:  # a 500 the test client re-raises: recorded with where it came from
            where = traceback.format_exc(limit=-1).strip().splitlines()
            self.failures.append(f"{what}: {method.upper()} {url} raised "
                                 f"{' | '.join(line.strip() for line in where[-4:])}")
            return None
        if response.status_code >= 500:
            self.failures.append(f"{what}: {method.upper()} {url} -> {response.status_code}")
            return None
        return response

    def _refusal_named(self, what: str, response) -> None:
        error = response.json().get("error") or {}
        if not error.get("message") or not (error.get("fields") or {}):
            self.failures.append(f"{what}: {response.status_code} without a named field: "
                                 f"{response.content[:300]!r}")

    def upload(self, what: str, url: str, name: str, body: bytes, created: int = 201) -> Any:
        response = self._call(what, "post", url, data={"file": SimpleUploadedFile(name, body)})
        if response is None:
            return None
        if response.status_code == created:
            self.imported += 1
            return response.json()
        if response.status_code in (400, 413):
            self._refusal_named(what, response)
        else:
            self.failures.append(f"{what}: unexpected {response.status_code}")
        return None

    def upload_page(self, what: str, url: str, name: str, body: bytes) -> str | None:
        """The form of the page: the answer is a page that says what went wrong, or the
        page of what was made (its URL returned)."""
        response = self._call(what, "post", url, data={"file": SimpleUploadedFile(name, body)},
                              follow=True)
        if response is None:
            return None
        if response.status_code != 200:
            self.failures.append(f"{what}: page upload ended on {response.status_code}")
            return None
        shown = response.content.decode("utf-8")
        if "not imported" in shown or "Could not import" in shown:
            return None
        self.imported += 1
        return response.redirect_chain[-1][0] if response.redirect_chain else url

    def page(self, what: str, url: str) -> None:
        response = self._call(what, "get", url)
        if response is not None and response.status_code != 200:
            self.failures.append(f"{what}: GET {url} -> {response.status_code}")

    def form_saved(self, what: str, url: str) -> None:
        """The page's form sent back unchanged, as a player saving without an edit. The page is
        read first: one that does not open (not a 200, so no form) is a failure here too."""
        try:
            response = lorebook_form_submit(self.client, url)
        except Exception:
            where = traceback.format_exc(limit=-1).strip().splitlines()
            self.failures.append(f"{what}: saving {url} unchanged raised "
                                 f"{' | '.join(line.strip() for line in where[-4:])}")
            return
        if response.status_code != 302:
            self.failures.append(f"{what}: saving {url} unchanged -> {response.status_code}")

    def turn(self, what: str, instance_id: str, query: str = "Where is the tower?") -> None:
        response = self._call(what, "post", "/api/v1/chat", data=json.dumps(
            {"instance_id": instance_id, "query": query}), content_type="application/json")
        if response is None or response.status_code == 200:
            return
        if response.status_code == 422 and response.json()["error"]["message"]:
            return  # refused with a reason (a 100,000-character greeting is past the prompt limit)
        self.failures.append(f"{what}: turn -> {response.status_code} "
                                 f"{response.content[:300]!r}")

    def json_post(self, what: str, url: str, payload: dict, method: str = "post") -> Any:
        response = self._call(what, method, url, data=json.dumps(payload),
                              content_type="application/json")
        return response.json() if response is not None and response.status_code < 300 else None


@pytest.fixture
def sweep(client, alice, store, use_stub):
    client.force_login(alice)
    return Sweep(client, {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}, store,
                 use_stub)


def label(base: str, path: Path, value: Any) -> str:
    shown = repr(value) if not isinstance(value, str) or len(value) < 40 else f"str[{len(value)}]"
    return f"{base} {'.'.join(map(str, path))} = {shown}"


def card_played(sweep: Sweep, what: str, character_id: str, export: str, *,
                opened: bool = False) -> None:
    """`opened`: the character's page was already read with 200, where the form landed."""
    if not opened:
        sweep.page(what, f"/library/characters/{character_id}/")
    created = sweep.json_post(what, "/api/v1/instances", {"character_id": character_id})
    if created is None:
        sweep.failures.append(f"{what}: no instance could be made with the imported character")
        return
    sweep.page(what, f"/instances/{created['instance_id']}/")
    sweep.turn(what, created["instance_id"])
    sweep.page(what, f"/api/v1/characters/{character_id}/{export}")


EXPORTS = ("card.png", "card.json?spec=v2", "card.charx", "card.json?spec=v3")
CARDS = {"card_v2": _card_v2, "card_v3": _card_v3, "card_v1": _card_v1,
         "pygmalion": _card_pygmalion, "agnai_card": _card_agnai}


# The card sweep runs in two files, so `--dist loadfile` puts them on two cores (issue 31): the
# SillyTavern V2 card, the longest (test_import_fuzz_cards.py), and the rest (…_cards_other.py).
CARDS_SPEC = ("card_v2",)


def card_sweep(sweep: Sweep, base: str) -> None:
    """Every mutation of the `base` card imported (by the library page's form, as a PNG, or as
    a CHARX zip for a V3 card) or refused by name; what imported opens, plays and exports."""
    doc = CARDS[base]()
    for index, (path, value) in enumerate(mutations(doc)):
        what = label(base, path, value)
        changed = replaced(doc, path, value)
        if index % 3 == 0:  # the library page's form
            landed = sweep.upload_page(what, "/library/cards/upload", "card.json",
                                       json_body(changed))
            made = {"character_id": landed.split("/")[-2]} if landed else None
        else:  # as a PNG, or a CHARX zip for a V3 card (the JSON goes through the form)
            name, body = (("card.charx", charx_body(changed)) if base == "card_v3" and index % 3 == 2
                          else ("card.png", png_body(changed)))
            made = sweep.upload(what, "/api/v1/characters/import", name, body)
        if made:
            card_played(sweep, what, made["character_id"], EXPORTS[index % len(EXPORTS)],
                        opened=index % 3 == 0)
    assert sweep.failures == [], "\n".join(sweep.failures[:40])
    assert sweep.imported > 0


BOOKS = {"st_world": _st_world, "st_world_list": _st_world_list, "book_list": _book_list,
         "agnai_memory": _agnai_memory, "risu": _risu_lorebook, "novelai": _novel_lorebook}



def chat_played(sweep: Sweep, what: str, instance_id: str, session_id: str, *,
                opened: bool = False) -> None:
    """`opened`: the chat page was already read with 200, where the form landed."""
    if not opened:
        sweep.page(what, f"/instances/{instance_id}/")
    sweep.turn(what, instance_id)
    sweep.page(what, f"/api/v1/instances/{instance_id}/sessions/{session_id}/export"
                     "?format=jsonl")


@pytest.fixture
def group(store, alice, character):
    from chat.services.instances import instance_create
    from library.character_services import character_save

    brenna = character_save(store, user=alice, character_id=None, data={
        "name": "Brenna", "base_persona": "A mechanic.", "greeting": "Hm."})
    return instance_create(store, owner=alice, character_ids=[character, brenna],
                           reply_order="everyone")


def chat_upload(sweep: Sweep, what: str, instance_id: str, body: bytes, *, form: bool) -> Any:
    if not form:
        return sweep.upload(what, f"/api/v1/instances/{instance_id}/import_chat", "chat.jsonl",
                            body)
    before = sweep.store.instance_state_read(instance_id)["current_session_id"]
    sweep.upload_page(what, f"/instances/{instance_id}/import_chat", "chat.jsonl", body)
    after = sweep.store.instance_state_read(instance_id)["current_session_id"]
    return {"session_id": after} if after != before else None


JSON_CHATS = {"agnai": agnai_chat, "risu_chat": risu_chat}

