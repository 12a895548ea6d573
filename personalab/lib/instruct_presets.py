"""The built-in instruct templates: each model family's turn markers, written in the fields of a
SillyTavern instruct preset (see personalab/lib/instruct.py for what each field does).

`story_prefix` / `story_suffix` are PersonaLab's own: how the opening system block (the card,
persona, lore before the chat) is wrapped. SillyTavern does that in its matching context
template's story string; an imported instruct preset without them wraps it in its system
sequence. Framework-free."""

from __future__ import annotations

from typing import Any

DEFAULT_TEMPLATE = "chatml"

BUILT_IN: dict[str, dict[str, Any]] = {
    # <|im_start|>role\n ... <|im_end|>\n (Qwen, Hermes, Yi, many fine-tunes)
    "chatml": {
        "name": "ChatML",
        "input_sequence": "<|im_start|>user", "input_suffix": "<|im_end|>\n",
        "output_sequence": "<|im_start|>assistant", "output_suffix": "<|im_end|>\n",
        "system_sequence": "<|im_start|>system", "system_suffix": "<|im_end|>\n",
        "stop_sequence": "<|im_end|>", "wrap": True, "names_behavior": "always",
    },
    # Llama 3 / 3.1 / 3.3 Instruct: header tokens, a blank line, the text, <|eot_id|>
    "llama3": {
        "name": "Llama 3 Instruct",
        "input_sequence": "<|start_header_id|>user<|end_header_id|>\n\n",
        "input_suffix": "<|eot_id|>",
        "output_sequence": "<|start_header_id|>assistant<|end_header_id|>\n\n",
        "output_suffix": "<|eot_id|>",
        "system_sequence": "<|start_header_id|>system<|end_header_id|>\n\n",
        "system_suffix": "<|eot_id|>",
        "stop_sequence": "<|eot_id|>", "wrap": False, "names_behavior": "always",
        "system_same_as_user": True,
    },
    # Mistral Instruct v2/v3 (and Mixtral): [INST] user [/INST] reply</s>; no system role, so the
    # opening block is one [INST] turn the model has "understood", as SillyTavern's template does.
    "mistral": {
        "name": "Mistral",
        "input_sequence": "[INST] ", "output_sequence": "[/INST] ",
        "last_output_sequence": "[/INST]", "output_suffix": "</s>",
        "wrap": False, "names_behavior": "always", "system_same_as_user": True,
        "user_alignment_message": "Let's get started. Please respond based on the information "
                                  "and instructions provided above.",
        "story_prefix": "[INST] ", "story_suffix": "[/INST] Understood.</s>",
    },
    # Alpaca: ### Instruction: / ### Response: blocks separated by blank lines
    "alpaca": {
        "name": "Alpaca",
        "input_sequence": "### Instruction:", "input_suffix": "\n\n",
        "output_sequence": "### Response:", "output_suffix": "\n\n",
        "system_sequence": "### Input:", "system_suffix": "\n\n",
        "wrap": True, "names_behavior": "force",
        "story_prefix": "", "story_suffix": "\n\n",
    },
    # Vicuna 1.1: the system text, then USER: / ASSISTANT: turns, a reply ending in </s>
    "vicuna": {
        "name": "Vicuna 1.1",
        "input_sequence": "\nUSER: ", "output_sequence": "\nASSISTANT: ", "output_suffix": "</s>",
        "wrap": False, "names_behavior": "force", "system_same_as_user": True,
        "story_prefix": "", "story_suffix": "\n",
    },
    # Gemma 2 / 3: user and model turns only; the opening block goes in a user turn
    "gemma": {
        "name": "Gemma",
        "input_sequence": "<start_of_turn>user", "input_suffix": "<end_of_turn>\n",
        "output_sequence": "<start_of_turn>model", "output_suffix": "<end_of_turn>\n",
        "system_sequence": "<start_of_turn>system", "system_suffix": "<end_of_turn>\n",
        "stop_sequence": "<end_of_turn>", "wrap": True, "names_behavior": "none",
        "system_same_as_user": True,
        "story_prefix": "<start_of_turn>user", "story_suffix": "<end_of_turn>\n",
    },
    # Metharme (Pygmalion 2, many role-play merges): <|system|>, <|user|>, <|model|> markers
    "metharme": {
        "name": "Metharme",
        "input_sequence": "<|user|>", "output_sequence": "<|model|>",
        "system_sequence_prefix": "<|system|>", "stop_sequence": "</s>",
        "wrap": False, "names_behavior": "force", "system_same_as_user": True,
        "story_prefix": "", "story_suffix": "",
    },
    # Phi-3 / Phi-3.5: <|role|>\n ... <|end|>\n
    "phi": {
        "name": "Phi",
        "input_sequence": "<|user|>\n", "input_suffix": "<|end|>\n",
        "output_sequence": "<|assistant|>\n", "output_suffix": "<|end|>\n",
        "system_sequence": "<|system|>\n", "system_suffix": "<|end|>\n",
        "stop_sequence": "<|end|>", "wrap": False, "names_behavior": "always",
    },
}
