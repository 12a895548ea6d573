"""Regenerate / continue in a conversation with several characters redo the reply of whoever
said that line; the first member can leave (the next one becomes the instance's character);
the biography reaches only a one-to-one story, and only its own character. Real turns with the
stub server."""

from __future__ import annotations

import asyncio
import json

import pytest

from chat.models import ApiToken
from chat.play.turn import TurnRefused, turn_run
from tests.chat.members_api import members_call
from tests.group_turns import session_lines, turn_said
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _round(store, instance_id, text, **kwargs):
    return asyncio.run(turn_said(store, instance_id, text, **kwargs))


def _redo(store, instance_id, **kwargs):
    async def emit(event):
        pass

    return asyncio.run(turn_run(store, instance_id=instance_id, user_text="", emit=emit,
                                **kwargs))


def _system(request) -> str:
    return request["messages"][0]["content"]


def test_regenerate_redoes_the_reply_of_the_member_who_said_it(store, group, brenna, use_stub):
    use_stub.script(Reply("我去找车。"), Reply("我修引擎。"))
    _round(store, group, "分头行动。")
    use_stub.script(Reply("引擎交给我。"))
    _redo(store, group, regenerate=True)

    assert "沉默的机械师" in _system(use_stub.requests[-1])  # Brenna's prompt, not Alserqi's
    last = session_lines(store, group)[-1]
    assert (last["speaker"], last["name"], last["content"]) == (brenna, "Brenna", "引擎交给我。")
    assert [a["content"] for a in last["alternatives"]] == ["我修引擎。"]
    assert [line["content"] for line in session_lines(store, group) if line.get("role")][-2] == "我去找车。"


def test_a_rest_regenerate_and_continue_say_which_member_answered(store, group, brenna, alice,
                                                                  client, use_stub):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    use_stub.script(Reply("我去找车。"), Reply("我修引擎。"))
    _round(store, group, "分头行动。")
    for action in ("regenerate", "continue"):
        use_stub.script(Reply("引擎交给我。"))
        answer = client.post(f"/api/v1/instances/{group}/{action}", **auth).json()
        assert answer.get("speaker") == brenna, answer


def test_continue_extends_the_same_members_reply(store, group, brenna, use_stub):
    use_stub.script(Reply("我去找车。"), Reply("我修引擎"))
    _round(store, group, "分头行动。")
    use_stub.script(Reply("，很快就好。"))
    _redo(store, group, continue_reply=True)

    assert "沉默的机械师" in _system(use_stub.requests[-1])
    # The reply going on is Brenna's own line, not another member's as the player hears it
    # (it went out as 'Alserqi: 我修引擎' from the player: group probe).
    sent = use_stub.requests[-1]["messages"]
    assert not any("我修引擎" in m["content"] and m["role"] == "user" for m in sent)
    assert any(m["role"] == "assistant" and m["content"].startswith("我修引擎") for m in sent)
    last = session_lines(store, group)[-1]
    assert last["speaker"] == brenna and last["name"] == "Brenna"
    assert last["content"] == "我修引擎，很快就好。"


def test_a_reply_by_a_member_who_left_is_not_redone(alice_client, store, group, brenna,
                                                    use_stub):
    use_stub.script(Reply("我去找车。"), Reply("我修引擎。"))
    _round(store, group, "分头行动。")
    assert members_call(alice_client, group, "delete", f"/{brenna}").status_code == 200
    asked = len(use_stub.requests)
    with pytest.raises(TurnRefused) as refused:
        _redo(store, group, regenerate=True)
    assert refused.value.status == 400 and "Brenna has left" in refused.value.message
    assert len(use_stub.requests) == asked and session_lines(store, group)[-1]["content"] == "我修引擎。"


def test_the_first_member_can_leave_and_the_next_one_takes_over(alice_client, store, group,
                                                                character, brenna, use_stub):
    folder = store.instance_dir(group)
    store.character_state_write(group, {"base_persona": "废土黑帮老大。",
                                        "evolved_persona": "开始信任玩家"})
    (folder / "character_states" / f"{brenna}.json").write_text(json.dumps(
        {"base_persona": "沉默的机械师。", "evolved_persona": "愿意多说一句话"}))

    response = members_call(alice_client, group, "delete", f"/{character}")
    assert response.status_code == 200, response.content
    state = store.instance_state_read(group)
    assert state["character_id"] == brenna
    assert [p["character_id"] for p in state["participants"]] == [brenna]
    assert store.character_state_read(group)["evolved_persona"] == "愿意多说一句话"
    # he took part, so he still lists it; the exact set now is Brenna and the player only
    listed = alice_client.get(f"/api/v1/participants/{character}/conversations").json()
    assert group in [c["instance_id"] for c in listed["conversations"]]
    exact = alice_client.get(f"/api/v1/conversations?participants={brenna}").json()
    assert [c["instance_id"] for c in exact["conversations"]] == [group]

    use_stub.script(Reply("……走吧。"))
    results = _round(store, group, "只剩我们了。")
    assert len(results) == 1
    assert "愿意多说一句话" in _system(use_stub.requests[-1])
    assert "开始信任玩家" not in _system(use_stub.requests[-1])

    last_one = members_call(alice_client, group, "delete", f"/{brenna}")
    assert last_one.status_code == 400 and "character_id" in last_one.json()["error"]["fields"]

    back = members_call(alice_client, group, "post", body={"character_id": character})
    assert back.status_code == 201
    assert json.loads((folder / "character_states" / f"{character}.json").read_text())[
        "evolved_persona"] == "开始信任玩家"


def test_the_biography_reaches_only_a_one_to_one_story_of_its_own_character(
        alice_client, store, group, character, brenna, use_stub):
    from memory.character.biography import biography_add

    biography_add(store, instance_id=group, text="Alserqi 在第七区长大。")
    use_stub.script(Reply("嗯。"), Reply("嗯。"))
    _round(store, group, "讲讲过去。")
    assert all("第七区长大" not in json.dumps(r["messages"], ensure_ascii=False)
               for r in use_stub.requests[-2:])

    members_call(alice_client, group, "delete", f"/{brenna}")
    use_stub.script(Reply("那是很久以前。"))
    _round(store, group, "讲讲过去。")
    assert "第七区长大" in json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)

    members_call(alice_client, group, "post", body={"character_id": brenna})
    members_call(alice_client, group, "delete", f"/{character}")  # Brenna alone now
    use_stub.script(Reply("……"))
    _round(store, group, "讲讲过去。")
    assert "第七区长大" not in json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
