"""The language of the prompt's own words (section titles, the opening user line, the memory
tasks' instructions): the `locale` of data/modules/prompt.json, or with "auto" the language of
what the character was written in, so an English card is never framed in Chinese."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from personalab.lib.filestore.store import FileStore

AUTO = "auto"
PROMPT_LOCALES = (AUTO, "zh", "en")
# Han characters; kana marks Japanese, which reads English titles better than Chinese ones.
_HAN = re.compile("[\u3400-\u9fff\uf900-\ufaff]")
_KANA = re.compile("[\u3040-\u30ff]")
SAMPLE_CHARS = 2000


def locale_pick(setting: Any, *texts: Any) -> str:
    """`setting` itself unless it is "auto" (or unset: "zh", the seed's language); with "auto",
    "zh" when the first characters of `texts` hold Chinese, else "en"."""
    if setting != AUTO:
        return str(setting or "zh")
    sample = " ".join(str(text)[:SAMPLE_CHARS] for text in texts if isinstance(text, str))
    return "zh" if _HAN.search(sample) and not _KANA.search(sample) else "en"


def locale_for_character(store: FileStore, character: dict[str, Any]) -> str:
    """The prompt's language for `character` (its name, persona and greeting tell "auto")."""
    return locale_pick(store.module_read("prompt").get("locale"), character.get("name"),
                       character.get("base_persona"), character.get("greeting"))
