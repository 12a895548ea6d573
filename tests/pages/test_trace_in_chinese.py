"""The prompt inspector explains itself in the reader's language (issue 33): where each card
field went, why the director read no marker from the reply, why a lore entry fired; the ids and
the player's own words stay as written."""

from __future__ import annotations

import pytest

from chat.services.instances import instance_create
from library.character_services import character_save
from library.lore.services import lorebook_save
from tests.library.card_turns import card_turn_run, english_set, mira_card, mira_import
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _part(page: str, start: str, end: str) -> str:
    return page.split(start, 1)[1].split(end, 1)[0]


def test_the_inspectors_card_director_and_lore_lines_read_in_chinese(alice_client, store, alice,
                                                                      background, use_stub):
    english_set(store)
    character_id = mira_import(store, mira_card(post_history_instructions="Stay brief.", extensions={"depth_prompt": {
        "prompt": "Mira hides a limp.", "depth": 2, "role": "system"}}))
    lorebook_id = lorebook_save(store, data={"name": "Drowned city", "entries": [
        {"uid": 1, "keys": ["clinic"], "comment": "The clinic", "content": "On stilts."},
        {"uid": 2, "keys": [], "constant": True, "comment": "Tides", "content": "High at noon."}]})
    character_save(store, data={**store.character_read(character_id),
                                "lorebook_ids": [lorebook_id]}, character_id=character_id)
    instance_id = instance_create(store, owner=alice, character_id=character_id,
                                  background_id=background)
    use_stub.script(Reply("She nods. [PROGRESS:9:completed]"))
    trace_id = card_turn_run(store, instance_id, "Is the clinic safe?")

    alice_client.cookies["django_language"] = "zh-hans"
    page = alice_client.get(f"/traces/{trace_id}/").content.decode()
    fields = _part(page, 'id="card-fields"', "</table>")
    assert "在「角色描述」一节" in fields and "只显示给玩家，从不发送" in fields
    assert "放在对话历史之后" in fields
    assert "保留了 2 个示例块中的 2 个" in fields and "深度 2，角色 系统" in fields
    assert "section base_persona" not in fields and "never sent" not in fields
    assert '"no">description<' in fields  # the card's own field names stay as written
    director = _part(page, 'id="trace-memory"', "</details>")
    assert "没有有效的进度标记" in director and "no valid marker" not in director
    assert "第 9 点超出了大纲（有效范围：1..5）" in director and "outside the outline" not in director
    lore = _part(page, 'id="lore-fired"', "</ul>")
    assert "关键词 &#x27;clinic&#x27; 出现在最新一条消息中" in lore and "常驻" in lore
    assert "Drowned city" in lore and "The clinic" in lore and " in message " not in lore


def test_the_inspectors_token_figures_are_grouped_as_the_chat_bar_groups_them(
        alice_client, store, alice, background, use_stub):
    """The chat bar said "15,360 个 token" and the inspector "15360"."""
    character_id = character_save(store, user=alice, character_id=None, data={
        "name": "Mira", "base_persona": "The tide comes in. " * 400, "greeting": "",
        "visibility": "private"})
    instance_id = instance_create(store, owner=alice, character_id=character_id,
                                  background_id=background)
    use_stub.script(Reply("Yes."))
    trace_id = card_turn_run(store, instance_id, "Hello?")
    total = store.trace_read(instance_id, trace_id)["total_tokens"]
    assert total >= 1000
    page = alice_client.get(f"/traces/{trace_id}/").content.decode()
    assert f"<strong>{total:,}</strong>" in page
    persona = _part(page, '<tr data-section="base_persona">', "</tr>")
    assert '<td class="num">2,' in persona or '<td class="num">1,' in persona
