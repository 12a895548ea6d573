"""Prompt post-processing (none / merge / strict, data/modules/llm.json) beside a context
template, with a text-completion backend and with chat completion. As in SillyTavern, it is a
Chat Completion setting: a text-completion prompt is laid out by its instruct and context
templates whatever it says (no "[Start a new chat]" line, no note turned into the player's
words), and a Continue ends on the open reply in every mode. Real turns against the stub."""

from __future__ import annotations

import pytest

from tests.stub_llm import Reply
from tests.text_turns import english, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic in a drowned city.", "personality": "calm",
    "scenario": "", "first_mes": "Hold still, {{user}}.", "alternate_greetings": [],
    "mes_example": "", "system_prompt": "Write Mira's reply.",
    "post_history_instructions": "Never speak for {{user}}.", "creator_notes": "", "tags": [],
    "extensions": {"depth_prompt": {"prompt": "Mira hides a limp.", "depth": 0,
                                    "role": "system"}}}}
# The card's post-history instructions are not sent in text completion (the context templates
# here do not allow them, as SillyTavern's): tests/chat/test_text_post_history.py.
NOTES = "<|im_start|>system\nMira hides a limp.<|im_end|>\n"


def _roles(messages: list[dict]) -> list[str]:
    return [message["role"] for message in messages]


@pytest.mark.parametrize("mode", ["none", "merge", "strict"])
@pytest.mark.parametrize("context", ["", "chatml"])
def test_post_processing_is_for_chat_completion_and_text_keeps_its_layout(
        store, alice, use_stub, settings, mode, context):
    settings.PERSONALAB_COMPLETION_API = "text"
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    settings.PERSONALAB_CONTEXT_TEMPLATE = context  # "": SillyTavern's Default
    store.module_write("llm", {"prompt_processing": mode})
    english(store)
    instance_id = solo_create(store, alice, CARD)
    use_stub.script(Reply("One."), Reply("Two and"), Reply(" more."))
    turn(store, instance_id)
    prompt = use_stub.requests[-1]["prompt"]
    # The greeting opens the chat as the character's turn, the notes keep their system turns.
    assert "[Start a new chat]" not in prompt
    assert prompt.endswith("<|im_start|>user\nAnn: Who are you?<|im_end|>\n" + NOTES
                           + "<|im_start|>assistant\nMira:")
    turn(store, instance_id, "Again?")
    result = turn(store, instance_id, "", continue_reply=True)
    continued = use_stub.requests[-1]["prompt"]
    # Continue: the notes go before the reply being continued, which ends the prompt, open.
    assert continued.endswith("<|im_start|>user\nAnn: Again?<|im_end|>\n" + NOTES
                              + "<|im_start|>assistant\nMira: Two and")
    assert result.answer_text == "Two and more."
    # Chat completion: the context template is not used and the mode is.
    settings.PERSONALAB_COMPLETION_API = "chat"
    turn(store, instance_id, "And now?")
    sent = use_stub.requests[-1]["messages"]
    assert "=== Personality ===" in sent[0]["content"]
    notes = "Mira hides a limp.\n\nNever speak for Ann."
    expected = {
        "none": [("user", "And now?"), ("system", "Mira hides a limp."),  # roles kept, as
                 ("system", "Never speak for Ann.")],  # SillyTavern's default
        "merge": [("user", "And now?"), ("system", notes)],  # the two notes joined
        "strict": [("assistant", "Two and more."),  # notes folded into the player's turn
                   ("user", "And now?\n\n" + notes)],
    }[mode]
    assert [(m["role"], m["content"]) for m in sent[-len(expected):]] == expected
    if mode == "strict":
        assert _roles(sent)[:3] == ["system", "user", "assistant"]  # "[Start a new chat]"
