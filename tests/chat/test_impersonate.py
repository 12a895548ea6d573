"""Impersonate (SillyTavern's button beside Send): the model suggests the player's next message
from the turn's own prompt plus the impersonation instruction as its last message; the
suggestion streams to the player only and nothing is written to the session. Real sockets and
REST against the stub server."""

from __future__ import annotations

import asyncio
import hashlib
import json

import pytest
from asgiref.sync import sync_to_async

from chat.models import ApiToken
from chat.play.impersonate import impersonate_plan
from library.find_replace.services import regex_scripts_account_save
from library.personas.services import persona_create
from personalab.lib.llm_offline import OfflineProvider
from tests.group_turns import turn_said
from tests.socket_tabs import tab_connect
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _session_digest(store, instance_id) -> str:
    state = store.instance_state_read(instance_id)
    return hashlib.sha256(
        store.session_path(instance_id, state["current_session_id"]).read_bytes()).hexdigest()


async def _until_end(communicator, timeout=10):
    events = []
    while True:
        event = await communicator.receive_json_from(timeout=timeout)
        events.append(event)
        if event["type"] in ("impersonate_done", "impersonate_error"):
            return events


@pytest.fixture
def played(store, alice, instance, use_stub):
    """A one-character story played by Mira, with one exchange in it."""
    persona_create(store, owner=alice, data={
        "name": "Mira", "description": "A courier who never gives up a package."})
    use_stub.script(Reply("你终于来了，货呢？"))
    asyncio.run(turn_said(store, instance, "我到了。"))
    return instance


async def test_a_suggestion_streams_over_the_websocket_and_the_story_is_untouched(
        alice, store, played, use_stub):
    before = _session_digest(store, played)
    use_stub.script(Reply("货在我背包里，先付钱。", chunk_size=3, delay=0.02))
    communicator, connected = await tab_connect(alice, played)
    assert connected
    await communicator.send_json_to({"type": "impersonate"})
    events = await _until_end(communicator)
    await communicator.disconnect()

    done = events[-1]
    assert done["type"] == "impersonate_done" and done["content"] == "货在我背包里，先付钱。"
    assert done["error"] is None and done["stopped"] is False
    tokens = [e for e in events if e["type"] == "impersonate_token"]
    assert len(tokens) > 1 and "".join(e["content"] for e in tokens) == done["content"]
    assert not any(e["type"] in ("token", "done") for e in events)  # not a reply
    assert _session_digest(store, played) == before

    sent = use_stub.requests[-1]["messages"]
    last = sent[-1]
    assert last["role"] == "system"
    assert "Mira" in last["content"] and "Alserqi" in last["content"]  # macros replaced
    assert "{{" not in last["content"]
    head = sent[0]["content"]
    assert "废土黑帮老大" in head and "never gives up a package" in head  # card and persona
    said = json.dumps(sent, ensure_ascii=False)
    assert "我到了。" in said and "你终于来了，货呢？" in said  # the history


async def test_a_streaming_suggestion_is_shown_cleaned_as_it_comes(alice, store, played,
                                                                   use_stub):
    # SillyTavern runs cleanUpMessage on each streamed update of the input box: the player's
    # own "Name:" never shows, nor the character's line the model ran on into.
    use_stub.script(Reply("Mira: 我来付钱。 \nAlserqi: 好。", chunk_size=2))
    communicator, _ = await tab_connect(alice, played)
    await communicator.send_json_to({"type": "impersonate"})
    events = await _until_end(communicator)
    await communicator.disconnect()

    tokens = [e for e in events if e["type"] == "impersonate_token"]
    assert "".join(e["content"] for e in tokens) == "Mira: 我来付钱。 \nAlserqi: 好。"
    shown = [e["text"] for e in tokens]
    # (a name's first letters may show until its colon comes, as there)
    assert not any("Mira:" in text or "Alserqi" in text or text != text.strip()
                   for text in shown)
    assert shown[-1] == events[-1]["content"] == "我来付钱。"


async def test_stop_ends_a_suggestion_early_keeping_what_came(alice, store, played, use_stub):
    before = _session_digest(store, played)
    use_stub.script(Reply("我想想……" + "先说好，" * 80, chunk_size=2, delay=0.02))
    communicator, _ = await tab_connect(alice, played)
    await communicator.send_json_to({"type": "impersonate"})
    first = await communicator.receive_json_from(timeout=10)
    assert first["type"] == "impersonate_token"
    await communicator.send_json_to({"type": "stop"})
    events = [first, *await _until_end(communicator)]
    await communicator.disconnect()

    done = events[-1]
    assert done["type"] == "impersonate_done" and done["stopped"] is True
    assert done["content"] and len(done["content"]) < len("先说好，" * 80)
    assert _session_digest(store, played) == before


async def test_a_suggestion_cannot_run_beside_a_reply(alice, store, played, use_stub):
    use_stub.script(Reply("一个很长的回答，" * 30, chunk_size=2, delay=0.02))
    story_socket, _ = await tab_connect(alice, played)
    other_tab, _ = await tab_connect(alice, played)
    await story_socket.send_json_to({"type": "send", "content": "讲讲路线。"})
    assert (await story_socket.receive_json_from(timeout=10))["type"] == "token"
    await other_tab.send_json_to({"type": "impersonate"})
    events = await _until_end(other_tab)
    assert events[-1]["type"] == "impersonate_error" and events[-1]["code"] == "busy"
    await story_socket.send_json_to({"type": "stop"})
    await story_socket.disconnect()
    await other_tab.disconnect()


def test_rest_gives_the_suggestion_and_writes_nothing(alice_client, store, played, use_stub):
    before = _session_digest(store, played)
    timed = store.memory_json_read(played, "worldinfo_timed", None)
    use_stub.script(Reply("先付钱。"))
    response = alice_client.post("/api/v1/chat", {"instance_id": played, "mode": "impersonate"},
                                 content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json() == {"mode": "impersonate", "instance_id": played,
                               "answer_text": "先付钱。", "error": None, "truncated": False}
    assert _session_digest(store, played) == before
    assert store.memory_json_read(played, "worldinfo_timed", None) == timed
    assert use_stub.requests[-1]["messages"][-1]["role"] == "system"


def test_rest_refuses_a_suggestion_while_the_instance_is_busy(alice_client, client, bob, store,
                                                             played, use_stub):
    asked = len(use_stub.requests)
    lock = store.instance_lock(played).acquire()
    try:
        busy = alice_client.post("/api/v1/chat", {"instance_id": played, "mode": "impersonate"},
                                 content_type="application/json")
    finally:
        lock.release()
    assert busy.status_code == 409 and busy.json()["error"]["code"] == "busy"
    client.force_login(bob)
    stranger = client.post("/api/v1/chat", {"instance_id": played, "mode": "impersonate"},
                           content_type="application/json")
    assert stranger.status_code == 404
    assert len(use_stub.requests) == asked


async def test_a_suggestion_streams_as_server_sent_events(async_client, alice, store, played,
                                                          use_stub):
    token = await sync_to_async(ApiToken.issue)(alice)
    before = _session_digest(store, played)
    use_stub.script(Reply("货就在这儿。", chunk_size=2))
    response = await async_client.post(
        "/api/v1/chat", data=json.dumps({"instance_id": played, "mode": "impersonate",
                                         "stream": True}),
        content_type="application/json", headers={"Authorization": f"Bearer {token}"})
    assert response["Content-Type"] == "text/event-stream"
    body = b"".join([chunk async for chunk in response.streaming_content]).decode()
    events = [(block.split("\n")[0].removeprefix("event: "),
               json.loads(block.split("\n")[1].removeprefix("data: ")))
              for block in body.strip().split("\n\n")]
    assert events[-1][0] == "impersonate_done" and events[-1][1]["content"] == "货就在这儿。"
    assert "".join(d["content"] for kind, d in events if kind == "impersonate_token") \
        == "货就在这儿。"
    assert _session_digest(store, played) == before


def test_the_instruction_is_a_setting(alice_client, store, played, use_stub):
    store.module_write("prompt", {**store.module_read("prompt"),
                                  "impersonation_prompt": "[Speak as {{user}} to {{char}}.]"})
    use_stub.script(Reply("好。"))
    response = alice_client.post("/api/v1/chat", {"instance_id": played, "mode": "impersonate"},
                                 content_type="application/json")
    assert response.status_code == 200
    assert use_stub.requests[-1]["messages"][-1] == {
        "role": "system", "content": "[Speak as Mira to Alserqi.]"}


def test_in_a_group_the_player_speaks_to_the_named_scene(alice_client, store, group, use_stub):
    use_stub.script(Reply("我去找车。"), Reply("我修引擎。"), Reply("大家听我说。"))
    asyncio.run(turn_said(store, group, "分头行动。"))
    before = _session_digest(store, group)
    response = alice_client.post("/api/v1/chat", {"instance_id": group, "mode": "impersonate"},
                                 content_type="application/json")
    assert response.json()["answer_text"] == "大家听我说。"
    sent = use_stub.requests[-1]["messages"]
    assert sent[-1]["role"] == "system"
    said = json.dumps(sent, ensure_ascii=False)
    assert "Brenna: 我修引擎。" in said and "User: 分头行动。" in said  # the scene, everyone named
    # Nobody of the group speaks: every member's line is a character's turn, named, as
    # SillyTavern sends a group's history (not the first member's own, the others' as the
    # player's turns).
    roles = {m["content"]: m["role"] for m in sent if m["role"] != "system"}
    assert roles == {"Brenna: ……嗯。": "assistant", "User: 分头行动。": "user",
                     "Alserqi: 我去找车。": "assistant", "Brenna: 我修引擎。": "assistant"}
    assert _session_digest(store, group) == before


def test_the_offline_demo_suggests_a_line_in_the_players_voice():
    async def suggest():
        pieces = [piece async for piece in OfflineProvider(delay=0).stream(
            [{"role": "system", "content": "[Write as Mira]"},
             {"role": "assistant", "content": "Where is the package?"},
             {"role": "system", "content": "[Write your next reply as Mira]"}],
            context={"task": "impersonate", "character_name": "Alserqi"})]
        return "".join(pieces)

    line = asyncio.run(suggest())
    assert "Alserqi" in line and "(Alserqi" not in line  # spoken to the character, not as it
    assert "[PROGRESS" not in line


def test_the_settings_page_saves_the_instruction_and_refuses_a_bad_one_by_name(
        client, staff, store, played, use_stub):
    client.force_login(staff)
    form = {"thresholds.rag_fallback_threshold": "3", "thresholds.summary_last_n_turns": "5",
            "limits.max_total_tokens": "100000", "limits.middle_section_warning_tokens": "5000",
            "limits.conversation_max_tokens": "100000",
            "preferences.summary_order": "summary_first"}
    assert 'name="prompt.impersonation_prompt"' in client.get("/settings/").content.decode()
    saved = client.post("/settings/", {**form, "prompt.impersonation_prompt": "[Be {{user}}.]"})
    assert saved.status_code == 302
    too_long = client.post("/settings/", {**form, "prompt.impersonation_prompt": "x" * 4001})
    assert too_long.status_code == 400
    assert 'data-field="prompt.impersonation_prompt"' in too_long.content.decode()
    assert store.module_read("prompt")["impersonation_prompt"] == "[Be {{user}}.]"

    plan = impersonate_plan(store, instance_id=played)
    assert plan.messages[-1] == {"role": "system", "content": "[Be Mira.]"}
    client.post("/settings/", {**form, "prompt.impersonation_prompt": ""})  # back to the default
    plan = impersonate_plan(store, instance_id=played)
    assert plan.messages[-1]["content"] != "[Be Mira.]" and "Mira" in plan.messages[-1]["content"]


def test_the_default_instruction_follows_the_prompt_language(store, played):
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "en"})
    english = impersonate_plan(store, instance_id=played).messages[-1]["content"]
    assert english.startswith("[Write your next reply from the point of view of Mira")
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "zh"})
    chinese = impersonate_plan(store, instance_id=played).messages[-1]["content"]
    assert chinese.startswith("[以Mira的视角") and "Alserqi" in chinese


def _script(find: str, replace: str, placement: list[int], **flags) -> dict:
    return {"id": f"id-{find}", "scriptName": f"swap {find}", "findRegex": find,
            "replaceString": replace, "trimStrings": [], "placement": placement,
            "disabled": False, "markdownOnly": False, "promptOnly": False, "runOnEdit": False,
            "substituteRegex": 0, "minDepth": None, "maxDepth": None, **flags}


def test_a_suggestion_gets_the_user_input_scripts_as_sillytavern_cleans_it_up(
        alice_client, alice, store, played, use_stub):
    # SillyTavern's cleanUpMessage runs placement 1 (user input) on an impersonation, with
    # neither "only" flag: not the AI-output scripts, nor prompt-only nor markdown-only ones.
    regex_scripts_account_save(store, user=alice, scripts=[
        _script("/colour/g", "color", [1]),
        _script("/sea/g", "ocean", [2]),
        _script("/red/g", "RED", [1], promptOnly=True),
        _script("/blue/g", "BLUE", [1], markdownOnly=True)])
    before = _session_digest(store, played)
    use_stub.script(Reply("What colour is the red sea, or the blue one?"))
    response = alice_client.post("/api/v1/chat", {"instance_id": played, "mode": "impersonate"},
                                 content_type="application/json")
    assert response.json()["answer_text"] == "What color is the red sea, or the blue one?"
    assert _session_digest(store, played) == before  # still only a suggestion
