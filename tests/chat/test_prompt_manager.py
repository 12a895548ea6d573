"""A SillyTavern Chat Completion preset brings its prompts into the prompt manager, and each
block reaches the model where SillyTavern puts it (seen through a real turn: the stub server
records what the model received). The preset (tests/chat/st_presets.py) is written from
SillyTavern's documented format (`prompts` + `prompt_order`)."""

from __future__ import annotations

import json

import pytest

from chat.services.instances import instance_create
from personalab.lib.prompt_manager import prompt_blocks_from_st_preset
from tests.chat.st_presets import st_preset
from tests.library.card_turns import card_turn_run, english_set, mira_card, mira_import
from tests.rest_client import bearer_auth
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_preset_places_each_prompt_where_sillytavern_does(store, alice, client, use_stub):
    english_set(store, main_prompt="TEMPLATE MAIN", post_history="TEMPLATE POST")
    character_id = mira_import(store, mira_card())
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    response = client.post(f"/api/v1/instances/{instance_id}/generation/preset", st_preset(),
                           content_type="application/json", **bearer_auth(alice))
    assert response.status_code == 200, response.content
    assert response.json()["generation"] == {"temperature": 0.7, "max_tokens": 300}

    card_turn_run(store, instance_id, "Who are you?")
    sent = use_stub.requests[-1]["messages"]
    system = sent[0]["content"]
    # The preset's main prompt replaces the template's, macros applied.
    assert "Write Mira's next reply in a fictional chat with Ann." in system
    assert "TEMPLATE MAIN" not in system
    # The auxiliary prompt follows the character's sections; the switched-off one is not sent.
    assert system.index("A field medic") < system.index("Keep the tone grim.")
    assert "Add to Mira's lore." not in json.dumps(sent)
    # In the chat: the depth-1 prompt with its own role before the last message; after the
    # history, the after-history prompt, then the post-history instructions.
    assert sent[-4] == {"role": "user", "content": "(OOC: be brief)"}
    assert sent[-3] == {"role": "user", "content": "Who are you?"}
    # Each its own system message, as SillyTavern sends them (bench/st_parity_items.py).
    assert sent[-2:] == [{"role": "system", "content": "Remember the storm."},
                         {"role": "system", "content": "Reply in two paragraphs at most."}]
    assert use_stub.requests[-1]["temperature"] == 0.7


def test_a_cards_post_history_instructions_replace_the_presets(store, alice, use_stub):
    english_set(store, post_history="TEMPLATE POST")
    character_id = mira_import(store,
                               mira_card(post_history_instructions="Stay terse. {{original}}"))
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    state = store.instance_state_read(instance_id)
    state["prompt_manager"] = prompt_blocks_from_st_preset(st_preset())
    store.instance_state_write(instance_id, state)
    card_turn_run(store, instance_id)
    sent = use_stub.requests[-1]["messages"]
    assert sent[-1]["content"].endswith("Stay terse. Reply in two paragraphs at most.")


def test_what_a_preset_leaves_out_is_listed_with_the_reason(store, alice, client, instance):
    client.post(f"/api/v1/instances/{instance}/generation/preset", st_preset(),
                content_type="application/json", **bearer_auth(alice))
    manager = client.get(f"/api/v1/instances/{instance}/prompt_manager",
                         **bearer_auth(alice)).json()
    skipped = {item["name"]: item["reason"] for item in manager["skipped"]}
    assert "always sends" in skipped["charPersonality"]
    assert "impersonation_prompt" not in skipped  # a utility prompt now (kept, sent)
    assert manager["utility"]["impersonation_prompt"] == \
        "[Write your next reply from the point of view of {{user}}]"
    names = [b["name"] for b in manager["blocks"]]
    assert names == ["Main Prompt", "Enhance Definitions", "Auxiliary Prompt", "Whisper",
                     "Tail note", "Post-History Instructions"]


def test_the_preset_exports_back_and_imports_to_the_same_blocks(store, alice, client, instance):
    auth = bearer_auth(alice)
    client.post(f"/api/v1/instances/{instance}/generation/preset", st_preset(),
                content_type="application/json", **auth)
    before = client.get(f"/api/v1/instances/{instance}/prompt_manager", **auth).json()["blocks"]
    exported = client.get(f"/api/v1/instances/{instance}/generation/preset", **auth).json()
    assert exported["temperature"] == 0.7 and exported["openai_max_tokens"] == 300
    again = prompt_blocks_from_st_preset(exported)
    assert [{k: b[k] for k in ("name", "role", "content", "enabled", "place", "depth")}
            for b in again["blocks"]] == [
        {k: b[k] for k in ("name", "role", "content", "enabled", "place", "depth")}
        for b in before]
    assert again["skipped"] == []


def test_blocks_are_edited_through_rest_and_checked_first(store, alice, bob, client, instance):
    auth = bearer_auth(alice)
    url = f"/api/v1/instances/{instance}/prompt_manager"
    bad = client.put(url, {"blocks": [{"name": "x", "role": "narrator", "content": "hi"}]},
                     content_type="application/json", **auth)
    assert bad.status_code == 400
    assert "blocks[0].role" in bad.json()["error"]["fields"]
    good = client.put(url, {"blocks": [{"name": "Tone", "content": "Be kind.",
                                        "place": "after_char"}]},
                      content_type="application/json", **auth)
    assert good.status_code == 200 and good.json()["blocks"][0]["content"] == "Be kind."
    # Another account neither reads nor changes them.
    assert client.get(url, **bearer_auth(bob)).status_code == 404
    assert client.put(url, {"blocks": []}, content_type="application/json",
                      **bearer_auth(bob)).status_code == 404
    assert store.instance_state_read(instance)["prompt_manager"]["blocks"][0]["name"] == "Tone"


# --- a preset's regex scripts (SillyTavern keeps them in the preset's extensions) -------------

def _regex(find: str, replace: str, placement: list[int], **flags) -> dict:
    return {"id": f"id-{find}", "scriptName": f"preset {find}", "findRegex": find,
            "replaceString": replace, "trimStrings": [], "placement": placement,
            "disabled": False, "markdownOnly": False, "promptOnly": False, "runOnEdit": False,
            "substituteRegex": 0, "minDepth": None, "maxDepth": None, **flags}


def _stored(store, instance_id: str) -> list[str]:
    state = store.instance_state_read(instance_id)
    return [line["content"] for line in
            store.session_read(instance_id, state["current_session_id"]).lines
            if line.get("role")]


def test_a_presets_regex_scripts_import_run_once_allowed_and_export_back(store, alice, client,
                                                                         use_stub, instance):
    auth = bearer_auth(alice)
    scripts = [_regex("/\\bsmiles\\b/g", "grins", [2]),
               _regex("/storm/g", "STORM", [1], promptOnly=True)]
    response = client.post(f"/api/v1/instances/{instance}/generation/preset",
                           st_preset(extensions={"regex_scripts": scripts}),
                           content_type="application/json", **auth)
    assert response.status_code == 200, response.content
    url = f"/api/v1/instances/{instance}/prompt_manager"
    manager = client.get(url, **auth).json()
    assert [s["findRegex"] for s in manager["regex_scripts"]] == ["/\\bsmiles\\b/g", "/storm/g"]
    assert manager["regex_scripts_allowed"] is False
    use_stub.script(Reply("She smiles."))
    card_turn_run(store, instance, "A storm?")
    assert _stored(store, instance)[-1] == "She smiles."  # off until allowed
    assert use_stub.requests[-1]["messages"][-3]["content"] == "A storm?"

    allowed = client.put(url, {"regex_scripts_allowed": True}, content_type="application/json",
                         **auth)
    assert allowed.status_code == 200 and allowed.json()["regex_scripts_allowed"] is True
    assert allowed.json()["blocks"] == manager["blocks"]  # the blocks stay as they were
    use_stub.script(Reply("She smiles."))
    card_turn_run(store, instance, "The storm again?")
    assert _stored(store, instance)[-1] == "She grins."
    sent = use_stub.requests[-1]["messages"]
    assert {"role": "user", "content": "The STORM again?"} in sent
    assert _stored(store, instance)[-2] == "The storm again?"  # prompt-only: the chat keeps it

    exported = client.get(f"/api/v1/instances/{instance}/generation/preset", **auth).json()
    assert exported["extensions"]["regex_scripts"] == manager["regex_scripts"]


def test_a_preset_with_a_costly_regex_script_is_refused_whole(store, alice, client, instance):
    before = store.instance_state_read(instance).get("prompt_manager")
    response = client.post(f"/api/v1/instances/{instance}/generation/preset",
                           st_preset(extensions={"regex_scripts": [
                               _regex("/(?:a{2000}){2000}/g", "x", [2])]}),
                           content_type="application/json", **bearer_auth(alice))
    assert response.status_code == 400
    assert "extensions.regex_scripts[0].findRegex" in response.json()["error"]["fields"]
    assert store.instance_state_read(instance).get("prompt_manager") == before


# --- the account's default preset: new chats start from it, a chat can reset to it ------------

def test_an_account_preset_is_where_new_chats_start_and_a_chat_can_reset_to_it(
        store, alice, client, use_stub, alice_client):
    english_set(store, main_prompt="TEMPLATE MAIN")
    auth = bearer_auth(alice)
    character_id = mira_import(store, mira_card())
    older = instance_create(store, owner=alice, character_id=character_id)
    response = client.post("/api/v1/generation/preset", st_preset(extensions={"regex_scripts": [
        _regex("/\\bsmiles\\b/g", "grins", [2])]}), content_type="application/json", **auth)
    assert response.status_code == 200, response.content
    assert response.json()["generation"] == {"temperature": 0.7, "max_tokens": 300}
    assert client.get("/api/v1/generation", **auth).json()["generation"]["temperature"] == 0.7
    default = client.get("/api/v1/prompt_manager", **auth).json()
    assert default["blocks"][0]["name"] == "Main Prompt"
    assert client.put("/api/v1/prompt_manager", {"regex_scripts_allowed": True},
                      content_type="application/json", **auth).status_code == 200

    newer = instance_create(store, owner=alice, character_id=character_id)
    use_stub.script(Reply("She smiles."))
    card_turn_run(store, newer, "Who are you?")
    sent = use_stub.requests[-1]
    assert "Write Mira's next reply in a fictional chat with Ann." in sent["messages"][0][
        "content"]
    assert sent["temperature"] == 0.7
    assert _stored(store, newer)[-1] == "She grins."  # the default's allowed preset scripts
    # a chat started before keeps its own until it is reset
    use_stub.script(Reply("She smiles."))
    card_turn_run(store, older, "Who are you?")
    assert "TEMPLATE MAIN" in use_stub.requests[-1]["messages"][0]["content"]
    assert _stored(store, older)[-1] == "She smiles."
    reset = client.post(f"/api/v1/instances/{older}/prompt_manager/reset", **auth)
    assert reset.status_code == 200 and reset.json()["blocks"] == default["blocks"]
    use_stub.script(Reply("ok"))
    card_turn_run(store, older, "Again?")
    assert "TEMPLATE MAIN" not in use_stub.requests[-1]["messages"][0]["content"]

    exported = client.get("/api/v1/generation/preset", **auth).json()
    assert exported["temperature"] == 0.7
    assert [b["name"] for b in prompt_blocks_from_st_preset(exported)["blocks"]] == [
        b["name"] for b in default["blocks"]]
    assert exported["extensions"]["regex_scripts"][0]["findRegex"] == "/\\bsmiles\\b/g"
    page = alice_client.get("/settings/").content.decode()
    assert 'data-testid="account-prompt-blocks"' in page and "/api/v1/prompt_manager" in page


def test_one_accounts_default_preset_is_not_anothers(store, alice, bob, client):
    client.post("/api/v1/generation/preset", st_preset(), content_type="application/json",
                **bearer_auth(alice))
    assert client.get("/api/v1/prompt_manager", **bearer_auth(bob)).json()["blocks"] == []
    character_id = mira_import(store, mira_card())
    bobs = instance_create(store, owner=bob, character_id=character_id)
    assert "prompt_manager" not in store.instance_state_read(bobs)


# --- markers reorder PersonaLab's own sections ----------------------------------------------

def test_a_presets_marker_order_reorders_the_prompts_sections(store, alice, client, use_stub):
    english_set(store)
    character_id = mira_import(store, mira_card())
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    moved = [{"identifier": name, "enabled": True} for name in (
        "main", "dialogueExamples", "scenario", "worldInfoBefore", "personaDescription",
        "charDescription", "charPersonality", "worldInfoAfter", "chatHistory", "jailbreak")]
    preset = st_preset()
    preset["prompt_order"] = [{"character_id": 100001, "order": moved}]
    response = client.post(f"/api/v1/instances/{instance_id}/generation/preset", preset,
                           content_type="application/json", **bearer_auth(alice))
    assert response.status_code == 200, response.content
    manager = client.get(f"/api/v1/instances/{instance_id}/prompt_manager",
                         **bearer_auth(alice)).json()
    assert manager["markers"][:3] == ["dialogueExamples", "scenario", "worldInfoBefore"]
    assert "marker order" not in {item["name"] for item in manager["skipped"]}
    card_turn_run(store, instance_id)
    # the examples are messages of their own (SillyTavern's), in the order of the markers
    system = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    examples = system.index("Only when you talk.")
    scenario = system.index("Ann wakes in her clinic.")
    description = system.index("A field medic in a drowned city.")
    personality = system.index("calm, dry humour")
    assert examples < scenario < description < personality
    # the export keeps the order, and importing it again gives the same markers
    exported = client.get(f"/api/v1/instances/{instance_id}/generation/preset",
                          **bearer_auth(alice)).json()
    assert prompt_blocks_from_st_preset(exported)["markers"] == manager["markers"]


def test_sillytaverns_default_marker_order_keeps_the_templates_order(store, alice, client,
                                                                     use_stub, instance):
    client.post(f"/api/v1/instances/{instance}/generation/preset", st_preset(),
                content_type="application/json", **bearer_auth(alice))
    assert client.get(f"/api/v1/instances/{instance}/prompt_manager",
                      **bearer_auth(alice)).json()["markers"] == []


def test_chat_history_moved_among_the_markers_puts_the_conversation_there(
        store, alice, client, use_stub):
    """SillyTavern sends what follows `chatHistory` in the order after the chat: a preset that
    moves it above the scenario and examples gets those after the conversation, and the
    prompt inspector lists them there."""
    english_set(store)
    character_id = mira_import(store, mira_card())
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    moved = [{"identifier": name, "enabled": True} for name in (
        "main", "worldInfoBefore", "personaDescription", "charDescription", "charPersonality",
        "chatHistory", "scenario", "dialogueExamples", "c7a2", "worldInfoAfter", "jailbreak")]
    preset = st_preset()
    preset["prompt_order"] = [{"character_id": 100001, "order": moved}]
    response = client.post(f"/api/v1/instances/{instance_id}/generation/preset", preset,
                           content_type="application/json", **bearer_auth(alice))
    assert response.status_code == 200, response.content
    manager = client.get(f"/api/v1/instances/{instance_id}/prompt_manager",
                         **bearer_auth(alice)).json()
    assert "chatHistory" not in {item["name"] for item in manager["skipped"]}
    trace_id = card_turn_run(store, instance_id, "Who are you?")
    sent = use_stub.requests[-1]["messages"]
    assert "A field medic in a drowned city." in sent[0]["content"]
    assert "Ann wakes in her clinic." not in sent[0]["content"]
    last = max(i for i, m in enumerate(sent) if m["role"] == "user")
    assert sent[last] == {"role": "user", "content": "Who are you?"}
    # Each part its own system message after it, as SillyTavern sends them.
    assert {m["role"] for m in sent[last + 1:]} == {"system"}
    after = "\n\n".join(m["content"] for m in sent[last + 1:])
    assert after.index("Ann wakes in her clinic.") < after.index("Only when you talk.") \
        < after.index("Remember the storm.") < after.index("Reply in two paragraphs at most.")
    trace = client.get(f"/api/v1/traces/{trace_id}", **bearer_auth(alice)).json()
    names = [section["name"] for section in trace["sections"]]
    assert names.index("conversation") < names.index("scenario") < names.index("examples")
    # The export keeps the conversation's place among the markers.
    exported = client.get(f"/api/v1/instances/{instance_id}/generation/preset",
                          **bearer_auth(alice)).json()
    assert prompt_blocks_from_st_preset(exported)["markers"] == manager["markers"]


def test_a_prompt_that_forbids_overrides_keeps_the_cards_prompts_out(store, alice, client,
                                                                      use_stub):
    """SillyTavern's "Forbid overrides" on the main and post-history prompts: a card's system
    prompt and post-history instructions no longer replace them (ST's openai.js); the trace
    says so, and the preset's export keeps the switch."""
    preset = st_preset()
    for prompt in preset["prompts"]:
        if prompt["identifier"] in ("main", "jailbreak"):
            prompt["forbid_overrides"] = True
    character_id = mira_import(store, mira_card(
        system_prompt="CARD MAIN {{original}}", post_history_instructions="CARD POST"))
    instance_id = instance_create(store, owner=alice, character_id=character_id)
    auth = bearer_auth(alice)
    client.post(f"/api/v1/instances/{instance_id}/generation/preset", preset,
                content_type="application/json", **auth)
    trace_id = card_turn_run(store, instance_id, "Who are you?")
    sent = json.dumps(use_stub.requests[-1]["messages"])
    assert "CARD MAIN" not in sent and "CARD POST" not in sent
    assert "Write Mira's next reply in a fictional chat with User." in sent
    assert use_stub.requests[-1]["messages"][-1]["content"] == "Reply in two paragraphs at most."
    fields = store.trace_read(instance_id, trace_id)["card_fields"]
    assert "forbids overrides" in fields["system_prompt"]
    assert "forbids overrides" in fields["post_history_instructions"]
    exported = client.get(f"/api/v1/instances/{instance_id}/generation/preset", **auth).json()
    assert sorted(p["identifier"] for p in exported["prompts"] if p.get("forbid_overrides")) \
        == ["jailbreak", "main"]


def test_message_switches_it_does_not_apply_are_listed_as_not_imported():
    preset = {**st_preset(), "names_behavior": 2, "wrap_in_quotes": True,
              "squash_system_messages": True, "continue_postfix": "\n"}
    skipped = {item["name"] for item in prompt_blocks_from_st_preset(preset)["skipped"]}
    assert {"names_behavior", "wrap_in_quotes", "squash_system_messages",
            "continue_postfix"} <= skipped
    at_defaults = {**st_preset(), "names_behavior": 0, "wrap_in_quotes": False,
                   "squash_system_messages": False, "continue_postfix": " "}
    assert prompt_blocks_from_st_preset(at_defaults)["skipped"] == \
        prompt_blocks_from_st_preset(st_preset())["skipped"]
