"""Conversations with several characters, through real turns against the stub server: the
members' files, who answers, each speaker's own prompt, the player's pick, stop."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from asgiref.sync import sync_to_async

from chat.groups.round import conversation_turn, round_done_event
from chat.history_manager.edits import reply_choose_alternative
from chat.play.turn import turn_run
from chat.services.instances import instance_create
from chat.services.members import instance_member_add
from chat.services.session_export import session_export
from library.character_services import character_save
from personalab.lib.filestore.variables import session_variables_read
from personalab.lib.letter_colours import letter_class
from tests.group_turns import reply_order_set, session_lines, turn_said
from tests.socket_tabs import tab_connect
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def test_rest_creates_a_conversation_with_both_characters_each_with_its_own_state(
        alice_client, store, character, brenna):
    response = alice_client.post("/api/v1/instances", {"character_ids": [character, brenna]},
                                 content_type="application/json")
    assert response.status_code == 201
    instance_id = response.json()["instance_id"]
    state = store.instance_state_read(instance_id)
    assert [p["character_id"] for p in state["participants"]] == [character, brenna]
    assert state["character_id"] == character and state["reply_order"] == "natural"
    folder = store.instance_dir(instance_id)
    assert json.loads((folder / "character_state.json").read_text())["base_persona"] == "废土黑帮老大。"
    own = json.loads((folder / "character_states" / f"{brenna}.json").read_text())
    assert own == {"base_persona": "沉默的机械师，左手是义肢。", "evolved_persona": ""}
    greeting = session_lines(store, instance_id)[0]
    assert (greeting["speaker"], greeting["name"], greeting["content"]) == (brenna, "Brenna", "……嗯。")


def test_one_character_in_a_list_is_todays_instance(alice_client, store, character):
    response = alice_client.post("/api/v1/instances", {"character_ids": [character]},
                                 content_type="application/json")
    state = store.instance_state_read(response.json()["instance_id"])
    assert state["participants"] == [{"character_id": character,
                                      "state_file": "character_state.json"}]
    assert "reply_order" not in state


def test_bad_members_or_order_are_named(alice_client, character):
    for body, field in (({"character_ids": []}, "character_ids"),
                        ({"character_ids": [character, "../x"]}, "character_id"),
                        ({"character_ids": [character], "reply_order": "loudest"}, "reply_order"),
                        ({}, "character_id")):
        response = alice_client.post("/api/v1/instances", body, content_type="application/json")
        assert response.status_code == 400, body
        assert field in response.json()["error"]["fields"], (body, response.json())


async def test_everyone_answers_once_in_list_order_each_as_itself(store, group, character,
                                                                   brenna, use_stub):
    use_stub.script(Reply("我记得你。"), Reply("嗯。"))
    results = await turn_said(store, group, "你们还记得我吗？")
    assert [r.speaker for r in results] == [character, brenna]
    replies = [line for line in session_lines(store, group) if line["role"] == "assistant"][1:]
    assert [(r["speaker"], r["name"], r["content"]) for r in replies] == [
        (character, "Alserqi", "我记得你。"), (brenna, "Brenna", "嗯。")]
    assert {r["turn"] for r in replies} == {1}  # one round, one turn

    first, second = use_stub.requests[-2]["messages"], use_stub.requests[-1]["messages"]
    assert "废土黑帮老大" in first[0]["content"] and "Brenna 从不说" not in first[0]["content"]
    assert "Brenna: 沉默的机械师" in first[0]["content"]  # the other member, shortly
    assert "沉默的机械师" in second[0]["content"] and "Brenna 从不说超过两句话" in second[0]["content"]
    assert "Alserqi: 废土黑帮老大" in second[0]["content"]
    # Brenna sees Alserqi's reply as a named line of the scene, and answers it (after
    # SillyTavern's group nudge naming her, in the prompt's language)
    assert second[-2]["role"] == "user" and "Alserqi: 我记得你。" in second[-2]["content"]
    assert second[-1] == {"role": "system", "content": "[下一条回复只以Brenna的身份来写。]"}


async def test_a_round_of_the_group_is_one_turn_on_the_page_and_in_the_api(
        alice_client, store, group, use_stub):
    """Each member's reply counted a turn ("turn 1", then "turn 2" in the same round, the next
    round at 3): a player counts their own lines. Replies of a round share its player's turn;
    an empty Send's round is the next turn."""
    use_stub.script(Reply("我记得你。"), Reply("嗯。"), Reply("走吧。"), Reply("好。"),
                    Reply("……"), Reply("嗯？"))
    events: list[dict] = []
    await turn_said(store, group, "你们还记得我吗？")
    second = await turn_said(store, group, "那就出发。", events=events)
    await turn_said(store, group, None)
    turns = [(line["role"], line["turn"]) for line in session_lines(store, group)
             if line.get("turn")]
    assert turns == [("user", 1), ("assistant", 1), ("assistant", 1), ("user", 2),
                     ("assistant", 2), ("assistant", 2), ("assistant", 3), ("assistant", 3)]
    done = [e for e in events if e["type"] == "done"] + [round_done_event(second)]
    assert [e["turn"] for e in done] == [2, 2]
    response = await sync_to_async(alice_client.get)(
        f"/api/v1/instances/{group}/sessions/sess_001/current_response")
    assert response.json()["turn"] == 3 and response.json()["content"] == "嗯？"
    page = (await sync_to_async(alice_client.get)(f"/instances/{group}/")).content.decode()
    assert "(now at turn 3)" in page and "turn 4" not in page


async def test_a_reconnect_between_two_members_replies_hears_the_round_is_still_going(
        alice_client, store, group, character, brenna, use_stub):
    """`current_response` said "complete" once the first member had answered, while the next was
    still to: a REST client that reconnected then stopped waiting for the round."""
    use_stub.script(Reply("我记得你。"), Reply("嗯。"))
    url = f"/api/v1/instances/{group}/sessions/sess_001/current_response"
    between: list[dict] = []

    async def emit(event):
        if event["type"] == "done" and event.get("round_end") is False:
            between.append((await sync_to_async(alice_client.get)(url)).json())

    await conversation_turn(store, instance_id=group, user_text="你们还记得我吗？", emit=emit)
    assert between == [{"turn": 1, "session_id": "sess_001", "status": "streaming",
                        "content": "我记得你。", "speaker": character,
                        "trace_id": between[0]["trace_id"]}]
    after = (await sync_to_async(alice_client.get)(url)).json()
    assert (after["status"], after["content"], after["speaker"]) == ("complete", "嗯。", brenna)
    assert "round_going" not in store.instance_state_read(group)


async def test_a_round_a_crash_cut_between_members_reads_as_it_was_left(
        alice_client, store, group, use_stub):
    """The note a killed server left (its round never ends) is not believed: nobody holds the
    lock; the next round clears it."""
    use_stub.script(Reply("我记得你。"), Reply("嗯。"), Reply("走吧。"), Reply("好。"))
    await turn_said(store, group, "你们还记得我吗？")
    state = store.instance_state_read(group)
    store.instance_state_write(group, {**state, "round_going": {"session_id": "sess_001",
                                                                "turn": 1}})
    url = f"/api/v1/instances/{group}/sessions/sess_001/current_response"
    assert (await sync_to_async(alice_client.get)(url)).json()["status"] == "complete"
    with store.instance_lock(group):  # the same note with the lock held: a round going on
        assert (await sync_to_async(alice_client.get)(url)).json()["status"] == "streaming"
    await turn_said(store, group, "那就出发。")
    assert "round_going" not in store.instance_state_read(group)

async def test_the_trace_names_the_speaker_and_why(store, group, brenna, use_stub):
    results = await turn_said(store, group, "Brenna，你来说。", speaker=brenna)
    trace = store.trace_read(group, results[0].trace_id)
    assert trace["speaker"] == {"character_id": brenna, "name": "Brenna",
                                "reason": "requested by the player"}


@pytest.fixture
def nova_scene(store, alice, character):
    nova = character_save(store, user=alice, character_id=None, data={
        "name": "Nova", "base_persona": "{{char}} is an android. {{user}} is her friend.",
        "visibility": "private"})
    return instance_create(store, owner=alice, character_ids=[character, nova],
                           reply_order="natural")


async def test_another_members_description_speaks_of_that_member_not_the_speaker(
        store, character, nova_scene, use_stub):
    """The scene's other members are described with their own {{char}}: the speaker reads
    "Nova is an android", not its own name in Nova's place."""
    speaker_name = store.character_read(character)["name"]
    await turn_said(store, nova_scene, "Hello.", speaker=character)
    sent = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "- Nova: Nova is an android." in sent
    assert f"{speaker_name} is an android" not in sent


async def test_list_order_takes_turns_across_rounds(store, group, character, brenna, use_stub):
    reply_order_set(store, group, "list")
    spoken = [(await turn_said(store, group, f"第{n}句"))[0].speaker for n in range(3)]
    assert spoken == [character, brenna, character]


async def test_natural_order_answers_the_named_character_first(store, group, character, brenna,
                                                                 use_stub):
    reply_order_set(store, group, "natural")
    results = await turn_said(store, group, "Brenna，你的手怎么了？")
    assert results[0].speaker == brenna and len({r.speaker for r in results}) == len(results)


async def test_manual_order_waits_for_the_players_pick(alice, store, group, brenna, use_stub):
    reply_order_set(store, group, "manual")
    assert await turn_said(store, group, "大家好") == []
    assert use_stub.requests == [] and session_lines(store, group)[-1]["content"] == "大家好"
    communicator, _ = await tab_connect(alice, group)
    await communicator.send_json_to({"type": "trigger", "speaker": brenna})
    events = []
    while not events or events[-1]["type"] not in ("done", "error"):
        events.append(await communicator.receive_json_from(timeout=10))
    await communicator.disconnect()
    assert events[0] == {"type": "speaker", "speaker": brenna, "name": "Brenna",
                         "avatar": None, "letter": letter_class("Brenna"),
                         "reason": "requested by the player"}
    assert events[-1]["type"] == "done" and events[-1]["speaker"] == brenna
    lines = session_lines(store, group)
    assert [line["role"] for line in lines[-2:]] == ["user", "assistant"]
    assert lines[-1]["speaker"] == brenna


async def test_a_line_manual_order_keeps_unanswered_is_filled_as_it_is_sent(
        alice, store, group, use_stub):
    # As a turn's player line (SillyTavern's sendMessageAsUser): its macros are filled once and
    # its {{setvar}} is saved with the chat.

    reply_order_set(store, group, "manual")
    assert await turn_said(store, group, "{{setvar::mood::calm}}I am {{getvar::mood}}.") == []
    line = session_lines(store, group)[-1]
    assert line["content"] == "I am calm." and line["macros_filled"] is True
    state = store.instance_state_read(group)
    assert session_variables_read(store, instance_id=group, session_id=state[
        "current_session_id"])["variables"] == {"mood": "calm"}


async def test_rest_chat_makes_one_character_answer(alice_client, store, group, brenna, use_stub):
    use_stub.script(Reply("……手没事。"))
    response = await sync_to_async(alice_client.post)(
        "/api/v1/chat", {"instance_id": group, "query": "手怎么了", "speaker": brenna},
        content_type="application/json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["speaker"] == brenna and body["answer_text"] == "……手没事。"
    assert [r["name"] for r in body["replies"]] == ["Brenna"]
    response = await sync_to_async(alice_client.post)(
        "/api/v1/chat", {"instance_id": group, "query": "x", "speaker": "char_nobody"},
        content_type="application/json")
    assert response.status_code == 400
    assert "not a member" in response.json()["error"]["fields"]["speaker"]


async def _say_stopped_at_the_first_token(store, instance_id, text):
    stop = asyncio.Event()
    events: list[dict] = []

    async def stop_soon():
        while not any(e["type"] == "token" for e in events):
            await asyncio.sleep(0.01)
        stop.set()

    stopper = asyncio.create_task(stop_soon())
    results = await turn_said(store, instance_id, text, stop=stop, events=events)
    await stopper
    return results


async def test_stop_ends_the_whole_round(store, group, character, use_stub):
    use_stub.script(Reply("z" * 300, chunk_size=1, delay=0.01), Reply("never"))
    results = await _say_stopped_at_the_first_token(store, group, "说吧")
    assert [r.speaker for r in results] == [character] and results[0].interrupted
    assert len(use_stub.requests) == 1
    assert session_lines(store, group)[-1]["interrupted"] is True


async def test_a_round_cut_short_is_noted_on_the_page_until_the_next_round(
        store, group, character, brenna, use_stub, alice_client):
    # A reload or a phone locking its screen stops the round like Stop: before, the page then
    # gave no sign that Brenna never answered.
    use_stub.script(Reply("z" * 300, chunk_size=1, delay=0.01))
    results = await _say_stopped_at_the_first_token(store, group, "说吧")
    assert store.instance_state_read(group)["round_cut"] == {"names": ["Brenna"]}
    # the round's last event says it too, so the page that stopped it names her at once
    assert round_done_event(results)["unanswered"] == ["Brenna"]
    page = (await sync_to_async(alice_client.get)(f"/instances/{group}/")).content.decode()
    status = re.search(r'<p id="status"[^>]*>(.*?)</p>', page, re.DOTALL).group(1)
    assert "Brenna" in status and "Answer now" in status

    use_stub.script(Reply("好。"), Reply("嗯。"))
    await turn_said(store, group, "继续吧")
    assert "round_cut" not in store.instance_state_read(group)
    page = (await sync_to_async(alice_client.get)(f"/instances/{group}/")).content.decode()
    assert re.search(r'<p id="status"[^>]*></p>', page)


async def test_the_offline_demo_answers_the_newest_line_of_the_scene(store, group, brenna):
    # no LLM configured: the built-in demo answers, as for a newcomer after `make run`
    await turn_said(store, group, "Where are we heading tonight?")
    first, second = [line for line in session_lines(store, group) if line["role"] == "assistant"][-2:]
    assert '"Where are we heading tonight?"' in first["content"]
    assert "User:" not in first["content"] and "Brenna:" not in first["content"]
    # Brenna answers Alserqi's reply, quoted without the name it carries in her prompt
    assert second["speaker"] == brenna
    assert first["content"].split()[0] in second["content"]
    assert "Alserqi:" not in second["content"]


async def test_the_offline_demo_says_something_new_when_the_same_member_is_asked_twice(
        store, group, brenna):
    """"Answer now" twice on one member gave the very same line (qa4 G14)."""
    await turn_said(store, group, "Where are we heading tonight?")
    await turn_said(store, group, None, speaker=brenna)
    await turn_said(store, group, None, speaker=brenna)
    hers = [re.sub(r"\[PROGRESS:[^\]]*\]", "", line["content"])
            for line in session_lines(store, group) if line.get("speaker") == brenna]
    assert hers[-3] != hers[-2] != hers[-1]


async def test_the_director_counts_one_miss_per_round_not_per_reply(store, group, use_stub):
    use_stub.script(Reply("我记得你。"), Reply("嗯。"), Reply("走吧。"), Reply("好。"))
    await turn_said(store, group, "你们还记得我吗？")
    assert store.instance_state_read(group)["plot_state"]["no_update_count"] == 1
    results = await turn_said(store, group, "那就出发。")
    assert store.instance_state_read(group)["plot_state"]["no_update_count"] == 2
    reports = [store.trace_read(group, r.trace_id)["director_result"] for r in results]
    assert [r["counted_as_miss"] for r in reports] == [True, False]


async def test_a_rounds_last_reply_redone_or_flipped_counts_no_second_miss(store, group,
                                                                           use_stub):
    """Its plot state goes back to before it (after the round's first reply counted the
    round's miss), and the redo counted one again (red team, eleventh pass)."""
    async def emit(event):
        pass

    use_stub.script(Reply("我记得你。"), Reply("嗯。"), Reply("走吧。"), Reply("好。"))
    await turn_said(store, group, "你们还记得我吗？")
    await turn_run(store, instance_id=group, user_text="", emit=emit, regenerate=True)
    await turn_run(store, instance_id=group, user_text="", emit=emit, continue_reply=True)
    assert store.instance_state_read(group)["plot_state"]["no_update_count"] == 1
    await sync_to_async(reply_choose_alternative)(
        store, instance_id=group, session_id="sess_001", turn=1, alternative_index=0)
    assert store.instance_state_read(group)["plot_state"]["no_update_count"] == 1


async def test_a_marker_in_a_later_reply_of_the_round_still_moves_the_story(store, group,
                                                                            use_stub):
    use_stub.script(Reply("我记得你。"), Reply("嗯。[PROGRESS:1:completed]"))
    await turn_said(store, group, "你们还记得我吗？")
    plot_state = store.instance_state_read(group)["plot_state"]
    assert plot_state["no_update_count"] == 0 and plot_state["current_status"] == "completed"


def test_a_group_is_named_after_all_its_members_on_the_home_list_the_chat_page_and_the_export(
        alice_client, alice, store, group, character):
    home = alice_client.get("/").content.decode()
    assert "<strong><bdi>Alserqi &amp; Brenna</bdi></strong>" in home
    page = alice_client.get(f"/instances/{group}/").content.decode()
    assert 'data-testid="chat-title" title="Alserqi &amp; Brenna">Alserqi &amp; Brenna</h1>' in page
    exported = alice_client.get(f"/api/v1/instances/{group}/sessions/sess_001/export?format=md")
    assert "Alserqi & Brenna" in exported.content.decode().splitlines()[0]
    solo = instance_create(store, owner=alice, character_id=character)
    solo_page = alice_client.get(f"/instances/{solo}/").content.decode()
    assert 'data-testid="chat-title" title="Alserqi">Alserqi</h1>' in solo_page


async def test_a_chat_that_became_a_group_exports_its_earlier_replies_under_their_speaker(
        alice, store, character, brenna, use_stub):
    """The Markdown export headed each reply said before Brenna joined "Alserqi & Brenna"
    (the lines carry no name of their own; the JSONL export named them Alserqi)."""
    solo = await sync_to_async(instance_create)(store, owner=alice, character_id=character)
    use_stub.script(Reply("我是Alserqi。"))
    await turn_said(store, solo, "你是谁？")
    await sync_to_async(instance_member_add)(store, user=alice, instance_id=solo,
                                             character_id=brenna)
    data, _ = await sync_to_async(session_export)(store, instance_id=solo,
                                                  session_id="sess_001", fmt="md")
    text = data.decode()
    assert text.splitlines()[0] == "# Alserqi & Brenna · conversation 1"
    assert "**Alserqi** (turn 1)\n\n我是Alserqi。" in text


def test_each_members_persona_page_shows_its_own_pinned_prompt(alice_client, group, brenna):
    alice_client.post(f"/instances/{group}/persona/pinned_save", {"text": "Alserqi 答应过玩家。"})
    first = alice_client.get(f"/instances/{group}/persona/").content.decode()
    assert "In use now: this chat's override." in first and 'name="text" rows="5"' in first
    page = alice_client.get(f"/instances/{group}/persona/?character={brenna}").content.decode()
    assert "<pre>Brenna 从不说超过两句话。</pre>" in page
    assert "Alserqi 答应过玩家" not in page  # the instance's override is Alserqi's, not hers
    assert 'name="text" rows="5"' not in page


def test_the_home_list_previews_the_last_line_as_the_chat_page_reads_it(alice_client, alice,
                                                                        store):
    from library.selectors import persona_effective

    mira = character_save(store, user=alice, character_id=None, data={
        "name": "Mira", "base_persona": "机械师。", "visibility": "private",
        "greeting": "*Mira wipes grease from her hands.* You lost, {{user}}?"})
    instance_create(store, owner=alice, character_id=mira)
    player = persona_effective(store, owner=alice.username, persona_id=None)["name"]
    home = alice_client.get("/").content.decode()
    preview = home.split('data-testid="instance-last">', 1)[1].split("</p>", 1)[0]
    assert preview == (f"<strong><bdi>Mira</bdi>:</strong> Mira wipes grease from her hands. "
                       f"You lost, {player}?")


async def test_a_rest_round_nobody_answers_says_where_the_players_line_was_kept(
        alice_client, store, group, use_stub):
    """It answered session "" and turn 0, as if nothing was written (group probe)."""
    reply_order_set(store, group, "manual")
    response = await sync_to_async(alice_client.post)(
        "/api/v1/chat", {"instance_id": group, "query": "大家好"},
        content_type="application/json")
    body = response.json()
    line = session_lines(store, group)[-1]
    assert (body["answer_text"], line["content"]) == ("", "大家好")
    assert (body["session_id"], body["turn"]) == (
        store.instance_state_read(group)["current_session_id"], line["turn"])
    assert body["turn"] >= 1
