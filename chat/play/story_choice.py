"""Which context template (SillyTavern's story string, personalab/lib/story_string.py) a turn's
prompt is laid out with: only for a text-completion backend; the one chosen (the settings page,
`PUT /api/v1/llm/text_completion`, or PERSONALAB_CONTEXT_TEMPLATE), "default" when none is, as
SillyTavern; "none" keeps PersonaLab's own headed sections."""

from __future__ import annotations

from typing import Any

from chat.groups.members import members_of
from chat.prompt.alternation import processing_mode
from chat.prompt.inputs import PromptResult
from chat.prompt.story import StoryChoice
from chat.prompt.utility import ChatUtility
from chat.services.llm_text_settings import CUSTOM, NO_CONTEXT, llm_text_settings_read
from personalab.lib.filestore.store import FileStore
from personalab.lib.llm import LLMError
from personalab.lib.llm_text import TextCompletionProvider
from personalab.lib.story_string import (
    ContextTemplate,
    StoryStringError,
    context_stop,
    context_template_file,
    context_template_named,
    context_template_read,
)
from personalab.llm_config import llm_settings_from_env


def text_completion_on(store: FileStore) -> bool:
    """Whether a turn goes to a text-completion endpoint (as provider_for chooses, without
    building another provider: a local model would load)."""
    llm = llm_settings_from_env(store.module_read("llm"))
    return llm.completion_api == "text" and bool(llm.base_url or llm.api_key)


def prompt_processing_for(store: FileStore) -> str:
    """The connection's prompt post-processing, for chat completion only: a text-completion
    prompt is laid out by its instruct template, which marks every turn itself (SillyTavern
    post-processes Chat Completion prompts alone), so its messages keep their roles."""
    return "none" if text_completion_on(store) else processing_mode(store.module_read("llm"))


def chat_utility_for(store: FileStore, *, state: dict[str, Any], members: tuple[str, ...],
                     continuing: bool, impersonating: bool = False) -> ChatUtility | None:
    """SillyTavern's utility prompts for a Chat Completion turn (the chat's prompt manager's
    own, SillyTavern's defaults for the rest); None for text completion, which its templates
    lay out. `members`: a group's names in order, empty alone."""
    if text_completion_on(store):
        return None
    own = (state.get("prompt_manager") or {}).get("utility") or {}
    return ChatUtility(own=dict(own), members=members, continuing=continuing,
                       impersonating=impersonating)


def story_choice_for(store: FileStore, *, group: bool = False,
                     state: dict[str, Any] | None = None,
                     speaker_id: str = "", continuing: bool = False) -> StoryChoice | None:
    """`state` and `speaker_id` (a group): whose names, besides the player's and the
    speaker's, start a message in the example dialogues; `continuing`: a Continue."""
    if not text_completion_on(store):
        return None  # chat completion: the model's own chat template lays the prompt out
    provider = TextCompletionProvider(llm_settings_from_env(store.module_read("llm")))
    template = _template_chosen(store)
    if template is None:
        return None
    try:
        instruct = provider.template()
    except LLMError:
        instruct = None  # the turn itself says what is wrong with the instruct template
    members = tuple(member.name for member in members_of(store, state)
                    if member.character_id != speaker_id) if group and state else ()
    return StoryChoice(template=template, wrap=bool(instruct and instruct.wrap),
                       instruct=instruct, group=group, members=members, continuing=continuing)


def _template_chosen(store: FileStore) -> ContextTemplate | None:
    chosen = llm_text_settings_read(store)
    key = chosen["context_template_effective"]
    if key.strip().lower() == NO_CONTEXT:
        return None
    return (context_template_read(chosen["context"]) if key == CUSTOM and chosen["context"]
            else context_template_file(key) if key.lower().endswith(".json")
            else context_template_named(key))


def chat_reply_shape(store: FileStore) -> dict[str, Any]:
    """A Chat Completion reply's post-processing: the chosen context template's "Trim
    incomplete sentences", which SillyTavern keeps as a global setting that its cleanUpMessage
    applies whatever the API. Its "single line" is left out: there it only adds "\n" to the
    stop strings, which Chat Completion does not send (openai.js sends the player's own)."""
    if text_completion_on(store):
        return {}  # story_context gives it, with the template that laid the prompt out
    try:
        template = _template_chosen(store)
    except StoryStringError:
        return {}  # a text-completion turn says what is wrong with it
    return {"reply_shape": {"trim_sentences": True}} if template and template.trim_sentences \
        else {}


def story_context(prompt: PromptResult, choice: StoryChoice | None) -> dict[str, Any]:
    """What the text backend needs to know of the layout: the opening is put in as it is,
    and the template's own stop strings."""
    if not prompt.story_raw or choice is None:
        return {}
    return {"story_raw": True, "story_stop": context_stop(choice.template),
            "context_template": choice.template.name,
            # SillyTavern's names_as_stop_strings: off, "\nName:" lines do not end the reply
            **({} if choice.template.names_as_stop_strings else {"names_stop": False}),
            # Done on the finished reply (chat/play/turn.py), as SillyTavern's cleanUpMessage.
            **({"reply_shape": shape} if (shape := _shape(choice)) else {})}


def _shape(choice: StoryChoice) -> dict[str, bool]:
    template = choice.template
    return {key: True for key in ("trim_sentences", "single_line") if getattr(template, key)}
