"""The inspector's "read from the reply" line for a reply without a marker says so once ("No
valid marker (no valid marker)" read twice, in 中文 too); a reason of its own (an empty or
interrupted reply) still stands in brackets."""

from __future__ import annotations

import re

import pytest

from chat.services.instances import instance_create
from tests.library.card_turns import card_turn_run
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)
MISS = re.compile(r'data-testid="director-miss">([^<]*)<')


@pytest.mark.parametrize("language,line", [
    ("en", "No valid marker; turns without progress: 1."),
    ("zh-hans", "没有有效的进度标记；无进展轮数：1。"),
])
def test_a_reply_without_a_marker_is_said_once(alice_client, store, alice, character,
                                               background, use_stub, language, line):
    instance_id = instance_create(store, owner=alice, character_id=character,
                                  background_id=background)
    use_stub.script(Reply("She nods and walks on."))
    trace_id = card_turn_run(store, instance_id)
    alice_client.cookies["django_language"] = language
    page = alice_client.get(f"/traces/{trace_id}/").content.decode()
    assert MISS.search(page).group(1) == line


def test_an_empty_reply_keeps_its_reason(alice_client, store, alice, character, background,
                                         use_stub):
    instance_id = instance_create(store, owner=alice, character_id=character,
                                  background_id=background)
    use_stub.script(Reply(""))
    trace_id = card_turn_run(store, instance_id)
    page = alice_client.get(f"/traces/{trace_id}/").content.decode()
    assert MISS.search(page).group(1) == "No valid marker (the reply was empty); turns without progress: 1."
