"""The words recall matches on: lower-case English words (stop words out, Snowball-stemmed) and
Chinese character bigrams; what share of a line asks; the speaker a line is matched under."""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

import snowballstemmer

STOP_WORDS_EN = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can cannot could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just me more
most my myself no nor not of off on once only or other ought our ours ourselves out over own same
she should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves also s t don won isn aren wasn weren hasn haven hadn doesn
didn shouldn wouldn couldn ll re ve d m o y ok oh yeah yes hey hi wow really
""".split())

_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[a-z0-9]+(?:'[a-z]+)?")

@functools.lru_cache(maxsize=200_000)
def _english_stem(word: str) -> str:
    # Snowball (Porter 2): "running", "runs", "run" meet at "run"; "hiking", "hiked", "hike" at
    # "hike" (a suffix list alone left "runn" and short verbs unstemmed). One stemmer per thread:
    # a stemmer keeps its state while it works.
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)


_stemmers = threading.local()


# What each English word found becomes (nothing for a stop word, else its stem), looked up
# once per word rather than split, checked and stemmed each time (an import tokenizes 100,000
# lines at once). At most this many words are kept, so what one account's texts add to the
# server's memory is bounded; a word past them is worked out each time, the same way.
WORD_FORMS_KEPT = 200_000
_word_forms: dict[str, tuple[str, ...]] = {}


# Irregular verb forms, as their verb: Snowball leaves "ate", "bought", "met" as they are, so
# "what's the grossest thing u ever ate" never met "the weirdest thing you've eaten" and "what
# did I buy" never met "I bought a kayak". Forms that are also other everyday words are out
# ("left", "ground", "rose", "bit", "shot", "sat"); "saw" and "found" stay, the tool and
# founding a firm being rare in chat ("founded" is its own word).
_IRREGULAR_EN = {
    form: verb for verb, forms in {
        "eat": "ate eaten", "buy": "bought", "bring": "brought", "catch": "caught",
        "drink": "drank drunk", "drive": "drove driven", "fly": "flew flown",
        "give": "gave given", "go": "went gone", "get": "got gotten", "know": "knew known",
        "meet": "met", "run": "ran", "sing": "sang sung", "speak": "spoke spoken",
        "swim": "swam swum", "teach": "taught", "think": "thought", "take": "took taken",
        "write": "wrote written", "tell": "told", "sell": "sold", "send": "sent",
        "spend": "spent", "build": "built", "begin": "began begun", "break": "broke broken",
        "choose": "chose chosen", "forget": "forgot forgotten", "grow": "grew grown",
        "hide": "hid hidden", "keep": "kept", "lose": "lost", "make": "made", "pay": "paid",
        "find": "found", "ride": "rode ridden", "say": "said", "sleep": "slept",
        "steal": "stole stolen", "stand": "stood", "understand": "understood",
        "wear": "wore worn", "wake": "woke woken", "hear": "heard", "hold": "held",
        "fight": "fought", "see": "saw seen", "feel": "felt", "fall": "fell fallen",
        "draw": "drew drawn", "throw": "threw thrown", "bite": "bitten", "lend": "lent",
        "lead": "led", "mean": "meant", "become": "became", "come": "came",
        "forgive": "forgave forgiven",
    }.items() for form in forms.split()}


def _word_form(token: str) -> tuple[str, ...]:
    word = token.split("'")[0]
    if not word or word in STOP_WORDS_EN:
        return ()
    word = _IRREGULAR_EN.get(word, word)
    # Snowball's English rules all end in letters: a number is its own stem, and stemming each
    # new one (an import's "(12345)"s, dates, sums) was most of what a chat's tokenizing cost.
    return (word,) if word.isdigit() else (_english_stem(word),)


def text_tokenize(text: str) -> list[str]:
    """Lower-case English words (stop words out, lightly stemmed) and Chinese character bigrams
    (Chinese has no spaces; bigrams match most two-character words without a dictionary)."""
    tokens: list[str] = []
    forms = _word_forms
    for token in _TOKEN.findall(text.lower()):
        form = forms.get(token)
        if form is None:
            if not token.isascii():  # a run of Chinese characters
                tokens += map(str.__add__, token[:-1], token[1:]) if len(token) > 1 else [token]
                continue
            form = _word_form(token)
            if len(forms) < WORD_FORMS_KEPT:
                forms[token] = form
        tokens += form
    return tokens


_SENTENCE = re.compile(r"[^.!?。！？]*(?:[.!?。！？]+|$)")


def ask_share(text: str) -> float:
    """The share of a line (in characters) in sentences that ask: 1.0 for "What game are you
    playing?", about 0.4 for "Wow! That sounds great. What did you buy?", 0 for a statement."""
    text = text.strip()
    if not text:
        return 0.0
    asked = sum(len(sentence) for sentence in _SENTENCE.findall(text)
                if sentence.rstrip().endswith(("?", "？")))
    return asked / len(text)


def speaker_name(metadata: dict[str, Any]) -> str:
    """The name a line was said under. A group line's `speaker` is a character id; its `name`
    is what a question uses."""
    return str(metadata.get("name") or metadata.get("speaker") or "").strip()


def turn_text(text: str, metadata: dict[str, Any]) -> str:
    """What a turn is embedded and matched as: its speaker's name (when the app knows it)
    carries meaning a question will use ("What did Caroline say…")."""
    speaker = speaker_name(metadata)
    return f"{speaker}: {text}" if speaker else text
