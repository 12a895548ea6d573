"""Recall on every turn, the way people talk: a plain question ("When did Jolene adopt Susie?")
is searched as well as one with a trigger word; the words of asking ("do you remember",
还记得) are never the query; a turn recalls only what is not already in front of the model.

Without a trigger word, fewer lines are taken and each must pass the relevance floor
(memory/recall/floor.py), so small talk adds little or nothing; a trigger word forces recall
and deepens it (rag.recall_mode)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from memory.keyword_index.tokens import ask_share
from memory.recall.floor import FLOOR, Floor, Signals, content_words, floor_keeps, signals_read
from memory.recall.focus import turned_to_listener
from memory.recall.follow_up import follow_up_searched, question_alone
from memory.recall.passages import Near, lines_near
from memory.recall.queries import (
    PUNCTUATION,
    TRIGGERS_EN,
    TRIGGERS_ZH,
    query_extract,
    question_focus,
    questions_split,
    topic_change_cut,
)
from memory.recall.rag import (
    RecallResult,
    query_user_history,
    rankings_interleave,
    recall_mode,
    trigger_found,
)
from memory.recall.typos import typos_read
from memory.vectors.index import Hit, MemoryIndex
from personalab.lib.embedding.give_way import recall_held

# Lines a turn searches. The recalled section takes them best first until the memory share of
# the window is full (a quarter: 4,096 tokens of 16,384; chat/prompt/recall_section.py), not a
# fixed number: on the dev conversations the evidence a turn misses sits at ranks 30-100
# (candidates of the search, LoCoMo check conversations: 0.71 of the evidence in the first
# 30 lines, 0.83 in the first 60, 0.92 in the first 90). Measured with bench/recall_floor.py
# (dump of 120 candidates per question, 30 questions of every dev conversation, the first two
# of each set tuning, the others checking), with a trigger word, the first 30 lines -> the
# memory share filled: LoCoMo check 0.81 -> 0.90, REALTALK check 0.87 -> 0.90 (docs/memory.md).
CANDIDATES = 120
# A line whose sentences that ask hold at least this share of its characters asks (rather
# than tells): the player's earlier asking to remember is then meta-talk, never recalled.
MOSTLY_ASKING = 0.5
# A line quoted back: this many words of it in a row in the player's message, a Chinese
# character counting half a word (CJK_QUOTE_WEIGHT: a Chinese word is about two characters).
# Six words are too few: "I'm really lucky to have" opens many lines; and eight characters
# were: "的地点是浙江杭州" ("'s venue is Hangzhou, Zhejiang") ends many lines of a chat, which
# all came before the line the player said again (bench/play_long.py, MemDaily u47).
# A short question counts when all of it is there (_whole_question).
QUOTED_TOKENS = 8
CJK_QUOTE_WEIGHT = 0.5
# ...and said with something around it ("What did I tell you about this? …"): the same
# question sent again on its own is an echo.
FRAME_TOKENS = 4
SHINGLE = 4
QUOTE_SCAN_CHARS = 4000  # a quote is looked for in the first characters only
FEW_OWN_WORDS = 1  # a turn to the listener naming no more is searched only with the line before
_QUOTE_TOKEN = re.compile(r"[\u3400-\u9fff]|[^\W_\u3400-\u9fff]+")
_CJK_TOKEN = re.compile(r"[\u3400-\u9fff]")

__all__ = ["CANDIDATES", "TurnRecall", "asked_parts", "content_words",
           "recall_for_turn", "turn_candidates"]


@dataclass
class TurnRecall:
    """A turn's recall: the kept lines best first (result.hits) and the lines around each."""

    result: RecallResult
    near: dict[tuple[str, str, str], Near]
    triggered: bool


def asked_parts(text: str) -> list[str]:
    """The questions of a message without the ones that only ask to remember ("Do you
    remember?", "What did I tell you about this?"): those would steer the search to lines
    about remembering."""
    parts = [part for part in questions_split(question_focus(text))
             if query_extract(part, fallback=False)]
    # "What did I tell you about this? <what>": a part that names nothing besides the asking
    # ("about this", "it") would share the search with the part that names what is asked.
    return [part for part in parts if content_words(query_extract(part))] or parts


def _meta_talk(hit: Hit) -> bool:
    """The player's own earlier question about remembering: never an answer. A line that
    mostly tells ("Congrats! Remember the festival I told you about? I danced there and…")
    is an answer however it asks on the way."""
    return (str(hit.metadata.get("role") or "") == "user"
            and trigger_found(hit.text, TRIGGERS_ZH + TRIGGERS_EN)
            and ask_share(hit.text) >= MOSTLY_ASKING)


def _players_question(hit: Hit) -> bool:
    return str(hit.metadata.get("role") or "") == "user" and any(mark in hit.text
                                                                 for mark in "?？")


def _asked_before(hit: Hit, text: str, asked: list[str]) -> bool:
    """The same question asked before (`asked`: the message's parts that ask): an echo, not
    an answer. A line that holds words the player quotes back without asking them ("What did
    I tell you about this? I've been into dancing since…") is the answer itself."""
    return _players_question(hit) and any(part in text for part in asked)


def _quote_tokens(text: str) -> list[str]:
    """Words, and Chinese characters one by one, lower-cased: what a quote is counted in."""
    return _QUOTE_TOKEN.findall(text.lower())


def _quote_shingles(message: str) -> set[tuple[str, ...]]:
    tokens = _quote_tokens(message[:QUOTE_SCAN_CHARS])
    return {tuple(tokens[i:i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1)}


def quoted_run(line: str, shingles: set[tuple[str, ...]]) -> tuple[float, int]:
    """The longest run of `line`'s tokens in a row that the message (its `shingles`) holds
    too: its length in words (a Chinese character counting CJK_QUOTE_WEIGHT) and in tokens."""
    tokens = _quote_tokens(line[:QUOTE_SCAN_CHARS])
    words = [0.0]  # words[i]: the length in words of the first i tokens
    for token in tokens:
        words.append(words[-1] + (CJK_QUOTE_WEIGHT if _CJK_TOKEN.fullmatch(token) else 1.0))
    best: tuple[float, int] = (0.0, 0)
    run = 0
    for i in range(len(tokens) - SHINGLE + 1):
        run = run + 1 if tuple(tokens[i:i + SHINGLE]) in shingles else 0
        if run:
            start, stop = i - run + 1, i + SHINGLE
            best = max(best, (words[stop] - words[start], stop - start))
    return best


def _whole_question(line: str, run: float, run_tokens: int, *, remembering: bool) -> bool:
    """A short question quoted back whole (its quoted run, `run` words in `run_tokens`, is all
    of it): "Did I mention it the other day? What was the dream about?" points at the player's
    "What was the dream about?", five words. A statement that short is said in many lines and
    points at none of them; so is a question that names nothing ("How are you doing?"),
    unless the player asks to remember (`remembering`: "What did I tell you about this? What
    do you do there?")."""
    return (run >= SHINGLE and any(mark in line for mark in "?？")
            and run_tokens == len(_quote_tokens(line[:QUOTE_SCAN_CHARS]))
            and (remembering or bool(content_words(line))))


def normalized(text: str) -> str:
    return " ".join(text.lower().strip(PUNCTUATION).split())


def _reply_to(hit: Hit, near: dict[tuple[str, str, str], Near], shown: set[str],
              witnessed: Callable[[Mapping[str, Any]], bool] | None) -> Hit | None:
    """The other side's line right after the player's `hit`, when it may be recalled."""
    reply = near[hit.key].after if hit.key in near else None
    if (reply is None or str(reply.metadata.get("role") or "") == "user"
            or normalized(reply.text) in shown
            or (witnessed is not None and not witnessed(reply.metadata))):
        return None
    return replace(reply, score=hit.score)


def _replies_after(index: MemoryIndex, kept: list[Hit], questions: list[Hit],
                   runs: dict[tuple[str, str, str], float], *, shown: set[str],
                   witnessed: Callable[[Mapping[str, Any]], bool] | None) -> list[Hit]:
    """`kept` with the reply each of the player's `questions` quoted back had, right after it
    and with its quote's place in `runs`: asked again ("Sorry, I totally forgot: what's my
    sister's name?"), the answer is the reply the question had the first time."""
    near = lines_near(index, questions)
    replies = {hit.key: reply for hit in questions
               if (reply := _reply_to(hit, near, shown, witnessed)) is not None}
    moved = {reply.key for reply in replies.values()}
    texts = {normalized(hit.text) for hit in kept if hit.key not in moved}
    lines: list[Hit] = []
    for hit in kept:
        if hit.key in moved:
            continue
        lines.append(hit)
        reply = replies.get(hit.key)
        if reply is not None and normalized(reply.text) not in texts:
            texts.add(normalized(reply.text))
            lines.append(reply)
            runs[reply.key] = max(runs.get(reply.key, 0), runs[hit.key])
    return lines


def _searches_joined(query_text: str, *, leaning: bool, player_before: str,
                     search: Callable[[str], RecallResult]) -> tuple[RecallResult, str]:
    """The search for `query_text`, after it the search with the player's line it leans on
    (when `leaning` may), else the search for its last sentence alone (question_alone); and
    the text the floor reads the shared words of."""
    carried, stands_for = (follow_up_searched(query_text, player_before) if leaning
                           else ("", False))
    if carried:
        # The search with the line before first: alone, "那我上司呢？" names the boss but not
        # what is asked of him, and "When were they?" names nothing. A turn to the listener
        # naming at most one word of its own ("nah i mean u, who do u root for") is searched
        # only with the line before: alone, "you" lines took every other place. ("n what
        # about juice" and "nah i mean where was she flying off to" need their one word alone.)
        # Nor is a line searched alone that the question it stands for holds ("不是，我问的是
        # 我上司的" after "我下属电话多少来着？" is "我上司的电话多少"): alone, it drew every line
        # about the boss.
        joined = search(carried)
        if stands_for or (turned_to_listener(query_text) and len(
                content_words(query_extract(query_text, fallback=False))) <= FEW_OWN_WORDS):
            return joined, f"{carried} {query_text}"
        return _searched_first(joined, search(query_text)), f"{carried} {query_text}"
    result = search(query_text)
    alone = question_alone(query_text)
    return (_searched_first(search(alone), result) if alone else result), query_text


def _searched_first(first: RecallResult, then: RecallResult) -> RecallResult:
    """`then` with the lines of another search for the same turn, `first`, ranked in turn with
    its own, `first`'s first."""
    return replace(then, hits=rankings_interleave([first.hits, then.hits], CANDIDATES),
                   query=f"{first.query} / {then.query}", warning=then.warning or first.warning)


def turn_candidates(user_text: str, instance_id: str, *, index: MemoryIndex,
                    shown_texts: Iterable[str] = (), last_exchange: str = "",
                    player_before: str = "",
                    related_instance_ids: list[str] | None = None,
                    witnessed: Callable[[Mapping[str, Any]], bool] | None = None,
                    members: Iterable[str] = ()) -> tuple[RecallResult, list[Signals], bool]:
    """The searched lines best first, each with what the floor reads, before the floor; lines
    shown, meta-talk, echoes of the question and duplicates already left out; lines quoted back
    first, a question of the player's with the reply it had. A line that leans on the player's
    line before it (`player_before`: "And her birthday?") is also searched with that line; a
    message that tells first and asks last, also by its last sentence (question_alone)."""
    owners = [instance_id, *(related_instance_ids or [])]
    spelt = typos_read(user_text, index, owners).text  # "do u rmember…" asks to remember
    triggered = recall_mode(spelt) is not None
    own_parts = asked_parts(user_text)
    parts = own_parts or (asked_parts(last_exchange) if triggered else [])
    if not parts:
        return RecallResult(mode=None), [], triggered
    query_text = " ".join(parts)
    # A time said before a change of subject is the talk's ("the power went out last night…
    # anyway, where did you travel?"), not the question's.
    when = topic_change_cut(user_text)

    def search(text: str) -> RecallResult:
        return query_user_history(text, instance_id, index=index, force=True, k=CANDIDATES,
                                  related_instance_ids=related_instance_ids, when=when,
                                  witnessed=witnessed, members=members)

    result, query_text = _searches_joined(query_text, leaning=bool(own_parts),
                                          player_before=player_before, search=search)
    if triggered:
        result = replace(result, mode=recall_mode(spelt))
    shown = {normalized(text) for text in shown_texts if text}
    asked_again = [normalized(part) for part in parts
                   if len(normalized(part)) > 8 and any(mark in part for mark in "?？")]
    # A quote is looked for in what the message asks about, never in its words of asking: an
    # earlier "What did I tell you about this? ah, that's cool…" shared eight words in a row
    # with "What did I tell you about this? ah you want…" and came first.
    shingles = _quote_shingles(" ".join(own_parts))
    message_tokens = len(_quote_tokens(user_text[:QUOTE_SCAN_CHARS]))
    runs: dict[tuple[str, str, str], float] = {}
    kept: list[Hit] = []
    questions: list[Hit] = []  # the player's questions quoted back
    seen: set[str] = set()
    for hit in result.hits:
        text = normalized(hit.text)
        if not text or text in shown or text in seen:
            continue
        run, run_tokens = quoted_run(hit.text, shingles)
        quoted = ((run >= QUOTED_TOKENS
                   or _whole_question(hit.text, run, run_tokens, remembering=triggered))
                  and message_tokens - run_tokens >= FRAME_TOKENS)
        # A line quoted back is what the player points at, though it asked with a word that
        # also asks to remember ("…get gold before the ranked reset?").
        if not quoted and (_meta_talk(hit) or _asked_before(hit, text, asked_again)):
            continue
        seen.add(text)
        kept.append(hit)
        runs[hit.key] = run if quoted else 0
        if quoted and _players_question(hit):
            questions.append(hit)
    if questions:
        kept = _replies_after(index, kept, questions, runs, shown=shown, witnessed=witnessed)
    # What the player quotes back comes first, the longest quote first: "What did I tell you
    # about this? <the start of a line of theirs>" points at that line, though a reply that
    # shares its words can score higher.
    kept.sort(key=lambda hit: -runs[hit.key])
    near = lines_near(index, kept)
    speakers = index.speakers({"instance_id": instance_id})
    # The floor looks for the question's words in the lines: as meant, not as typed.
    asked = typos_read(query_text, index, owners).text
    return (replace(result, hits=kept), signals_read(asked, kept, near, speakers=speakers),
            triggered)


def recall_for_turn(user_text: str, instance_id: str, *, index: MemoryIndex,
                    shown_texts: Iterable[str] = (), last_exchange: str = "",
                    player_before: str = "",
                    related_instance_ids: list[str] | None = None,
                    witnessed: Callable[[Mapping[str, Any]], bool] | None = None,
                    members: Iterable[str] = (), floor: Floor = FLOOR) -> TurnRecall:
    """This turn's recalled lines, best first, all that pass the floor (the caller takes those
    it does not show until the memory share is full). `shown_texts`: the lines the prompt already
    holds and the player's current message, never recalled back; `members`, the names of the
    conversation's characters. A message that only asks ("你还记得吗？") is about the last
    exchange: its words are searched instead."""
    with recall_held():  # a fill in this process waits meanwhile (give_way.py)
        result, signals, triggered = turn_candidates(
            user_text, instance_id, index=index, shown_texts=shown_texts,
            last_exchange=last_exchange, player_before=player_before,
            related_instance_ids=related_instance_ids, witnessed=witnessed, members=members)
    hits = [s.hit for s in signals if triggered or floor_keeps(s, floor)]
    return TurnRecall(result=replace(result, hits=hits),
                      near={s.hit.key: s.near for s in signals}, triggered=triggered)
