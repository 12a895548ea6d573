"""Regex scripts (SillyTavern's regex extension) through real turns against the stub: a card's
script changes the stored reply, a prompt-only one only the request, a markdown-only one only
what the page shows; depth bounds; a costly pattern refused at save with a sentence beside
the field."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from chat.history_manager import edits as history
from chat.history_manager.base import line_fingerprint
from chat.models import ApiToken
from chat.play.turn import turn_run
from chat.services.instances import instance_create
from library.card_formats.card_import import character_import_card
from library.card_formats.export import character_export_card
from library.errors import LibraryError
from library.find_replace import scripts as runs
from library.find_replace.services import (
    card_scripts_allow,
    regex_scripts_account_read,
    regex_scripts_account_save,
)
from tests.group_turns import reply_order_set, session_lines, turn_said
from tests.library.browser_forms import character_form_submitted
from tests.library.lore_turns import lorebook_link
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

HOSTILE = "/(?:a{2000}){2000}/g"


def _script(find: str, replace: str, placement: list[int], **flags) -> dict:
    return {"id": f"id-{find}", "scriptName": f"swap {find}", "findRegex": find,
            "replaceString": replace, "trimStrings": [], "placement": placement,
            "disabled": False, "markdownOnly": False, "promptOnly": False, "runOnEdit": False,
            "substituteRegex": 0, "minDepth": None, "maxDepth": None, **flags}


def _card(scripts: list[dict]) -> dict:
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Mira", "description": "A field medic.", "personality": "", "scenario": "",
        "first_mes": "", "mes_example": "", "alternate_greetings": [], "tags": [],
        "extensions": {"regex_scripts": scripts}}}


def _chat(store, alice, scripts: list[dict], *, allowed: bool = True) -> str:
    """A chat with a card carrying `scripts`, which alice allowed (unless `allowed` is False)."""
    character_id = character_import_card(store, user=alice, filename="mira.json",
                                         data=json.dumps(_card(scripts)).encode())
    if allowed:
        card_scripts_allow(store, username="alice", allowed=True,
                           character=store.character_read(character_id))
    return instance_create(store, owner=alice, character_id=character_id)


def _turn(store, instance_id: str, text: str) -> None:
    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))


def _stored(store, instance_id: str) -> list[dict]:
    state = store.instance_state_read(instance_id)
    return [line for line in store.session_read(instance_id, state["current_session_id"]).lines
            if line.get("role")]


def _auth(user) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}


def test_a_cards_script_changes_the_stored_reply_and_the_players_message(store, alice,
                                                                           use_stub):
    instance_id = _chat(store, alice, [
        _script("/(\\w+) smiles/gi", "$1 grins at {{user}}", [2]),
        _script("/colour/g", "color", [1])])
    use_stub.script(Reply("Mira smiles. Then MIRA SMILES again.", reasoning="She smiles."))
    _turn(store, instance_id, "What colour is the sea?")
    user, reply = _stored(store, instance_id)[-2:]
    assert user["content"] == "What color is the sea?"
    # no persona: {{user}} is "User", not the account's login (docs/decisions/newcomer-name.md)
    assert reply["content"] == "Mira grins at User. Then MIRA grins at User again."
    assert reply["reasoning"] == "She smiles."  # placement 2 only: reasoning is its own
    # the next prompt carries what was stored
    use_stub.script(Reply("ok"))
    _turn(store, instance_id, "And now?")
    sent = use_stub.requests[-1]["messages"]
    assert {"role": "user", "content": "What color is the sea?"} in sent


def test_a_prompt_only_script_changes_the_request_but_not_the_chat(store, alice, use_stub):
    instance_id = _chat(store, alice, [
        _script("/secret/g", "[redacted]", [1, 2], promptOnly=True)])
    use_stub.script(Reply("The secret is safe."))
    _turn(store, instance_id, "Tell me the secret.")
    sent = use_stub.requests[-1]["messages"]
    assert sent[-1] == {"role": "user", "content": "Tell me the [redacted]."}
    assert [line["content"] for line in _stored(store, instance_id)] == [
        "Tell me the secret.", "The secret is safe."]
    use_stub.script(Reply("ok"))
    _turn(store, instance_id, "Again.")
    assert {"role": "assistant", "content": "The [redacted] is safe."} in \
        use_stub.requests[-1]["messages"]


def test_a_markdown_only_script_changes_only_what_the_page_shows(store, alice, alice_client,
                                                                   use_stub):
    instance_id = _chat(store, alice, [
        _script("/\\bsword\\b/g", "⚔", [2], markdownOnly=True)])
    use_stub.script(Reply("She draws her sword."))
    _turn(store, instance_id, "Draw!")
    assert _stored(store, instance_id)[-1]["content"] == "She draws her sword."
    use_stub.script(Reply("ok"))
    _turn(store, instance_id, "Again.")
    assert {"role": "assistant", "content": "She draws her sword."} in \
        use_stub.requests[-1]["messages"]
    page = alice_client.get(reverse("instance", args=[instance_id])).content.decode()
    assert "She draws her ⚔." in page
    assert "She draws her sword." not in page


def test_depth_bounds_pick_the_messages_a_prompt_script_touches(store, alice, use_stub):
    instance_id = _chat(store, alice, [
        _script("/ping/g", "PONG", [1, 2], promptOnly=True, minDepth=2, maxDepth=3)])
    for text in ("ping one", "ping two", "ping three"):
        use_stub.script(Reply(f"reply {text}"))
        _turn(store, instance_id, text)
    sent = [m["content"] for m in use_stub.requests[-1]["messages"] if m["role"] != "system"]
    # newest first: depth 0 "ping three", 1 "reply ping two", 2 "ping two", 3 "reply ping one"
    assert sent[-5:] == ["ping one", "reply PONG one", "PONG two", "reply ping two",
                         "ping three"]


def test_a_costly_pattern_is_refused_at_save_beside_the_field(store, alice, alice_client,
                                                              client):
    character_id = _chat(store, alice, [])
    character_id = store.instance_state_read(character_id)["character_id"]
    path = store.character_dir(character_id) / "definition.json"
    before = path.read_bytes()
    response = client.put(f"/api/v1/characters/{character_id}",
                          json.dumps({"regex_scripts": [_script(HOSTILE, "x", [2])]}),
                          content_type="application/json", **_auth(alice))
    assert response.status_code == 400
    assert "repeat count" in response.json()["error"]["fields"]["regex_scripts[0].findRegex"]
    assert path.read_bytes() == before

    url = reverse("character_edit", args=[character_id])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    submitted["regex_scripts"] = [json.dumps([_script(HOSTILE, "x", [2])])]
    response = alice_client.post(url, submitted)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-testid="regex-scripts-error"' in html and "repeat count" in html
    assert "(?:a{2000}){2000}" in html  # what was typed is still in the box
    assert path.read_bytes() == before

    submitted["regex_scripts"] = [json.dumps([_script("/blade/g", "sword", [2])])]
    assert alice_client.post(url, submitted).status_code == 302
    exported = json.loads(character_export_card(store, character_id=character_id, fmt="json",
                                                spec="v3"))
    assert exported["data"]["extensions"]["regex_scripts"][0]["findRegex"] == "/blade/g"


def test_account_scripts_run_in_every_chat_and_are_checked(store, alice, bob, client,
                                                           use_stub):
    response = client.put("/api/v1/regex-scripts",
                          json.dumps({"scripts": [_script(HOSTILE, "x", [1])]}),
                          content_type="application/json", **_auth(alice))
    assert response.status_code == 400
    assert "regex_scripts[0].findRegex" in response.json()["error"]["fields"]
    response = client.put("/api/v1/regex-scripts",
                          json.dumps({"scripts": [_script("/teh/g", "the", [1])]}),
                          content_type="application/json", **_auth(alice))
    assert response.status_code == 200
    listed = client.get("/api/v1/regex-scripts", **_auth(alice)).json()["scripts"]
    assert [s["findRegex"] for s in listed] == ["/teh/g"]
    assert client.get("/api/v1/regex-scripts", **_auth(bob)).json()["scripts"] == []

    instance_id = _chat(store, alice, [])
    use_stub.script(Reply("ok"))
    _turn(store, instance_id, "teh end")
    assert _stored(store, instance_id)[-2]["content"] == "the end"


def test_a_world_info_script_changes_the_lore_sent_not_the_book(store, alice, character,
                                                                 instance, use_stub):
    lorebook_id = lorebook_link(store, character, {"uid": 1, "keys": ["vault"],
                                                   "content": "The vault code is 1234."})
    regex_scripts_account_save(store, user=alice, scripts=[
        _script("/\\d{4}/g", "****", [5]), _script("/vault/g", "VAULT", [2])])
    _turn(store, instance, "Where is the vault?")
    sent = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    assert "The vault code is ****." in sent and "1234" not in sent
    assert "Where is the vault?" in sent  # an AI-output script leaves the player's words
    assert store.lorebook_read(lorebook_id)["entries"][0]["content"] == "The vault code is 1234."


def test_only_scripts_marked_run_on_edit_change_an_edited_message(store, alice, use_stub):
    instance_id = _chat(store, alice, [
        _script("/damn/g", "darn", [1], runOnEdit=True),
        _script("/hello/g", "HELLO", [1])])
    use_stub.script(Reply("ok"))
    _turn(store, instance_id, "hello there")
    assert _stored(store, instance_id)[-2]["content"] == "HELLO there"
    state = store.instance_state_read(instance_id)
    read = store.session_read(instance_id, state["current_session_id"])
    index = next(i for i, line in enumerate(read.lines) if line.get("role") == "user")
    history.message_edit(store, instance_id=instance_id, session_id=state["current_session_id"],
                         index=index, fingerprint=line_fingerprint(read.lines[index]),
                         text="hello, damn it")
    assert _stored(store, instance_id)[-2]["content"] == "hello, darn it"


def test_a_reasoning_script_changes_only_the_reasoning(store, alice, use_stub):
    instance_id = _chat(store, alice, [_script("/plan/g", "PLAN", [6])])
    use_stub.script(Reply("The plan works.", reasoning="My plan: wait."))
    _turn(store, instance_id, "Go.")
    reply = _stored(store, instance_id)[-1]
    assert reply["content"] == "The plan works." and reply["reasoning"] == "My PLAN: wait."


def test_a_disabled_script_and_one_without_g_behave_as_in_sillytavern(store, alice, use_stub):
    instance_id = _chat(store, alice, [_script("/a/", "b", [2]),
                                       _script("/b/g", "c", [2], disabled=True)])
    use_stub.script(Reply("aaa"))
    _turn(store, instance_id, "Go.")
    assert _stored(store, instance_id)[-1]["content"] == "baa"


def test_the_regex_scripts_page_refuses_a_costly_pattern_and_keeps_what_was_typed(
        alice_client, alice, store):
    url = reverse("regex_scripts")
    typed = json.dumps([_script(HOSTILE, "x", [1])])
    response = alice_client.post(url, {"regex_scripts": typed})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-testid="regex-scripts-error"' in html and "repeat count" in html
    assert "(?:a{2000}){2000}" in html
    assert regex_scripts_account_read(store, username="alice") == []
    assert alice_client.post(url, {"regex_scripts": json.dumps(
        [_script("/teh/g", "the", [1])])}).status_code == 302
    assert "/teh/g" in alice_client.get(url).content.decode()


def test_a_scripts_box_nested_too_deep_is_refused_beside_it_on_both_pages(
        alice_client, alice, store):
    # json.loads' RecursionError went up as a 500: the page, and what was typed, were lost.
    typed = "[" * 50_000 + "]" * 50_000
    character_id = store.instance_state_read(_chat(store, alice, []))["character_id"]
    url = reverse("character_edit", args=[character_id])
    submitted = {**character_form_submitted(alice_client.get(url).content.decode()),
                 "regex_scripts": [typed]}
    for response in (alice_client.post(url, submitted),
                     alice_client.post(reverse("regex_scripts"), {"regex_scripts": typed})):
        assert response.status_code == 400
        assert "nests too deep" in response.content.decode()
    assert regex_scripts_account_read(store, username="alice") == []


def test_a_card_whose_script_is_too_costly_to_compile_is_not_imported(store, alice):
    before = set(store.character_ids())
    with pytest.raises(LibraryError) as refused:
        character_import_card(store, user=alice, filename="mira.json", data=json.dumps(
            _card([_script("/broken(/g", "x", [2]), _script(HOSTILE, "x", [2])])).encode())
    assert "extensions.regex_scripts[1].findRegex" in refused.value.field_errors
    assert set(store.character_ids()) == before
    # a broken pattern alone is kept as it came (SillyTavern skips it when it runs)
    character_id = character_import_card(store, user=alice, filename="mira.json", data=json.dumps(
        _card([_script("/broken(/g", "x", [2])])).encode())
    assert store.character_read(character_id)["card"]["data"]["extensions"][
        "regex_scripts"][0]["findRegex"] == "/broken(/g"


def test_a_whole_card_sent_with_a_costly_script_is_refused(store, alice, client):
    character_id = store.instance_state_read(_chat(store, alice, []))["character_id"]
    card = _card([_script(HOSTILE, "x", [2])])
    response = client.put(f"/api/v1/characters/{character_id}", json.dumps({"card": card}),
                          content_type="application/json", **_auth(alice))
    assert response.status_code == 400
    assert "extensions.regex_scripts[0].findRegex" in response.json()["error"]["fields"]


def test_a_card_refused_for_a_costly_script_says_why_in_the_readers_language(store, alice,
                                                                            client):
    card = _card([_script(HOSTILE, "x", [2])])
    for language, why in (("en", "the repeat count {2000} is above 1,000"),
                          ("zh-hans", "重复次数 {2000} 超过了 1,000")):
        response = client.post("/api/v1/characters/import", {"file": SimpleUploadedFile(
            "mira.json", json.dumps(card).encode(), content_type="application/json")},
            HTTP_ACCEPT_LANGUAGE=language, **_auth(alice))
        error = response.json()["error"]
        assert response.status_code == 400, error
        assert error["message"].startswith("extensions.regex_scripts[0].findRegex")
        assert why in error["message"]
        assert why in error["fields"]["extensions.regex_scripts[0].findRegex"]


def test_a_new_chats_greeting_and_its_swipes_get_the_ai_output_scripts(store, alice):
    card = _card([_script("/colour/g", "color", [2])])
    card["data"].update(first_mes="What colour?", alternate_greetings=["A colour test."])
    character_id = character_import_card(store, user=alice, filename="mira.json",
                                         data=json.dumps(card).encode())
    card_scripts_allow(store, username="alice", allowed=True,
                       character=store.character_read(character_id))
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    greeting = _stored(store, instance_id)[0]
    assert greeting["content"] == "What color?"
    assert [item["content"] for item in greeting["alternatives"]] == ["A color test."]


async def test_a_players_line_nobody_answers_yet_gets_the_account_scripts(store, alice, group,  # noqa: F811
                                                                          use_stub):
    await sync_to_async(regex_scripts_account_save)(
        store, user=alice, scripts=[_script("/teh/g", "the", [1])])
    reply_order_set(store, group, "manual")
    assert await turn_said(store, group, "teh plan") == []
    assert session_lines(store, group)[-1]["content"] == "the plan"


# --- a card's scripts ask first (as SillyTavern does) ------------------------------------------

SWAP = _script("/(\\w+) smiles/gi", "$1 grins", [2])


def _import(client, user, scripts: list[dict]) -> dict:
    response = client.post("/api/v1/characters/import", {"file": _card_file(scripts)},
                           **_auth(user))
    assert response.status_code == 201
    return response.json()


def _card_file(scripts: list[dict]):
    return SimpleUploadedFile("mira.json", json.dumps(_card(scripts)).encode(),
                              content_type="application/json")


def test_a_cards_scripts_stay_off_until_the_player_allows_them(store, alice, alice_client,
                                                               client, use_stub):
    imported = _import(client, alice, [SWAP, _script("/colour/g", "color", [1])])
    assert imported["regex_scripts"] == 2 and imported["regex_scripts_allowed"] is False
    character_id = imported["character_id"]
    shown = client.get(f"/api/v1/characters/{character_id}", **_auth(alice)).json()
    assert shown["regex_scripts_allowed"] is False
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    use_stub.script(Reply("Mira smiles."))
    _turn(store, instance_id, "What colour?")
    assert [line["content"] for line in _stored(store, instance_id)] == [
        "What colour?", "Mira smiles."]
    page = alice_client.get(reverse("instance", args=[instance_id])).content.decode()
    assert 'data-testid="regex-allow"' in page and "2 regex scripts" in page

    response = alice_client.post(reverse("instance_regex_scripts", args=[instance_id]),
                                 {"character_id": character_id, "allowed": "1"})
    assert response.status_code == 302
    use_stub.script(Reply("Mira smiles."))
    _turn(store, instance_id, "What colour now?")
    assert [line["content"] for line in _stored(store, instance_id)][-2:] == [
        "What color now?", "Mira grins."]
    assert client.get(f"/api/v1/characters/{character_id}",
                      **_auth(alice)).json()["regex_scripts_allowed"] is True
    # Once allowed, the panel says what turning them off leaves as it is.
    page = alice_client.get(reverse("instance", args=[instance_id])).content.decode()
    assert "the greeting keeps the text they gave it" in page

    response = client.put(f"/api/v1/characters/{character_id}",
                          json.dumps({"regex_scripts_allowed": False}),
                          content_type="application/json", **_auth(alice))
    assert response.status_code == 200 and response.json()["regex_scripts_allowed"] is False
    use_stub.script(Reply("Mira smiles."))
    _turn(store, instance_id, "colour")
    assert [line["content"] for line in _stored(store, instance_id)][-2:] == [
        "colour", "Mira smiles."]


def test_one_accounts_yes_is_not_anothers_and_changed_scripts_ask_again(store, alice, bob,
                                                                        client, use_stub):
    character_id = _import(client, alice, [SWAP])["character_id"]
    assert client.put(f"/api/v1/characters/{character_id}",
                      json.dumps({"visibility": "shared"}), content_type="application/json",
                      **_auth(alice)).status_code == 200
    client.put(f"/api/v1/characters/{character_id}", json.dumps({"regex_scripts_allowed": True}),
               content_type="application/json", **_auth(alice))
    bobs = instance_create(store, owner=bob, character_id=character_id)
    use_stub.script(Reply("Mira smiles."))
    _turn(store, bobs, "Hi.")
    assert _stored(store, bobs)[-1]["content"] == "Mira smiles."  # alice's yes is hers
    # bob allows them (he may use the character, not change it)
    response = client.put(f"/api/v1/characters/{character_id}",
                          json.dumps({"regex_scripts_allowed": True}),
                          content_type="application/json", **_auth(bob))
    assert response.status_code == 200 and response.json()["regex_scripts_allowed"] is True
    use_stub.script(Reply("Mira smiles."))
    _turn(store, bobs, "Hi again.")
    assert _stored(store, bobs)[-1]["content"] == "Mira grins."
    # the author changes the scripts: they are hers, bob is asked again
    client.put(f"/api/v1/characters/{character_id}",
               json.dumps({"regex_scripts": [_script("/smiles/g", "laughs", [2])]}),
               content_type="application/json", **_auth(alice))
    assert client.get(f"/api/v1/characters/{character_id}",
                      **_auth(bob)).json()["regex_scripts_allowed"] is False
    assert client.get(f"/api/v1/characters/{character_id}",
                      **_auth(alice)).json()["regex_scripts_allowed"] is True
    use_stub.script(Reply("Mira smiles."))
    _turn(store, bobs, "And?")
    assert _stored(store, bobs)[-1]["content"] == "Mira smiles."


def test_the_editor_and_the_import_page_say_a_card_has_scripts(store, alice, alice_client):
    response = alice_client.post(reverse("card_upload"), {"file": _card_file([SWAP])},
                                 follow=True)
    html = response.content.decode()
    assert "This card has 1 regex script." in html
    assert 'data-testid="regex-scripts-allowed"' in html
    # Turning them off later does not rewrite greetings already stored: the editor says so.
    assert "Greetings already in your chats keep the text the scripts gave them" in html
    character_id = response.redirect_chain[-1][0].rstrip("/").split("/")[-1]
    definition = store.character_read(character_id)
    assert definition["character_id"] == character_id
    url = reverse("character_edit", args=[character_id])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    submitted["regex_scripts_allowed"] = ["1"]
    assert alice_client.post(url, submitted).status_code == 302
    assert 'name="regex_scripts_allowed" value="1" checked' in alice_client.get(
        url).content.decode()


def test_the_editor_says_which_imported_scripts_do_not_run_and_why(store, alice, alice_client):
    # SillyTavern's RegExp throws on Python's `(?i)`: the import keeps the script, SillyTavern
    # skips it and so does this app; the editor says so beside the box, before any save.
    character_id = character_import_card(store, user=alice, filename="mira.json", data=json.dumps(
        _card([_script("/(?i)mira/g", "M", [2]), SWAP])).encode())
    html = alice_client.get(reverse("character_edit", args=[character_id])).content.decode()
    assert 'data-testid="regex-scripts-error"' in html
    assert "Not running, as SillyTavern skips them too" in html
    assert "JavaScript takes no flag inside the pattern" in html and "swap /(?i)mira/g" in html


def test_a_replacement_that_would_grow_past_the_cap_is_refused_before_it_is_built(monkeypatch):
    """"$0" 40,000 times over a long match asked for gigabytes, the 2 M cap checked only once
    they were built: the server ran out of memory and every turn of the chat failed (red team).
    Now measured first: the script changes nothing and says why."""
    built: list[int] = []
    real_sub = runs._GROUP_REF.sub
    monkeypatch.setattr(runs, "_GROUP_REF", type("Refs", (), {
        "finditer": staticmethod(runs._GROUP_REF.finditer),
        "sub": staticmethod(lambda repl, text: built.append(1) or real_sub(repl, text))}))
    script = runs.script_read({"scriptName": "grow", "findRegex": "/^[\\s\\S]+$/",
                                  "replaceString": "$0" * 40_000, "placement": [1, 2]})
    run = runs.RegexRun(scripts=(script,))
    line = "x" * 100
    assert run.text(line, 1) == line and built == []
    assert "changed nothing: its result passed 2,000,000 characters" in run.problems[0]
    small = runs.RegexRun(scripts=(runs.script_read({
        "scriptName": "twice", "findRegex": "/a/g", "replaceString": "$0$0",
        "placement": [1]}),))
    assert small.text("banana", 1) == "baanaanaa"


async def test_in_a_group_another_members_reply_gets_the_ai_output_scripts_before_its_name(
        store, alice, group, character, brenna, use_stub):
    """SillyTavern runs a prompt's scripts on each message as said (`is_user` picks the
    placement), before a group's "Name: " is put in front: another member's reply, shown to
    the speaker as a user turn, still lost its AI-output block, not the player's words."""
    await sync_to_async(regex_scripts_account_save)(store, user=alice, scripts=[
        _script("/<state>[\\s\\S]*?<\\/state>/g", "", [2], promptOnly=True),
        _script("/bread/g", "loaf", [1], promptOnly=True),
        _script("/^The /g", "A ", [2], promptOnly=True)])
    reply_order_set(store, group, "manual")
    use_stub.script(Reply("The bread is warm. <state>gold=3</state>"))
    await turn_said(store, group, "Any bread?", speaker=brenna)
    use_stub.script(Reply("ok"))
    await turn_said(store, group, "And you?", speaker=character)
    shown = [message["content"] for message in use_stub.requests[-1]["messages"]
             if message["content"].startswith("Brenna: ")]
    assert [text.strip() for text in shown] == ["Brenna: ……嗯。", "Brenna: A bread is warm."]
    assert "gold=3" not in json.dumps(use_stub.requests[-1]["messages"])


def test_world_info_scans_the_messages_as_the_prompt_scripts_leave_them(
        store, alice, character, instance, use_stub):
    """SillyTavern scans the chat for lore keys after the prompt's scripts (`chatForWI` is
    made of the scripted messages): a key inside a block a card hides from the model, as an
    MVU card's "<UpdateVariable>" JSON names its places, does not fire the entry."""
    lorebook_link(store, character, {"uid": 1, "keys": ["chapel"],
                                     "content": "The chapel roof leaks."})
    regex_scripts_account_save(store, user=alice, scripts=[
        _script("/<state>[\\s\\S]*?<\\/state>/g", "", [2], promptOnly=True)])
    use_stub.script(Reply("Good morning. <state>place=chapel</state>"))
    _turn(store, instance, "Good morning.")
    use_stub.script(Reply("ok"))
    _turn(store, instance, "What now?")
    sent = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    assert "The chapel roof leaks." not in sent and "place=chapel" not in sent
    use_stub.script(Reply("To the chapel, then."))
    _turn(store, instance, "Where to?")
    use_stub.script(Reply("ok"))
    _turn(store, instance, "Go on.")
    assert "The chapel roof leaks." in use_stub.requests[-1]["messages"][0]["content"]
