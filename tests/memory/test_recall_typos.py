"""A question typed fast on a phone recalls as the clean one does: its misspelt words are
corrected against the words the session's lines hold and the corrected question is searched
beside the typed one (memory/recall/typos.py)."""

from __future__ import annotations

import pytest

from memory.recall import typos
from memory.recall.rag import query_user_history
from memory.recall.typos import MAX_CORRECTED, MAX_WORDS, english, typos_correct, typos_read
from memory.vectors.index import MemoryIndex
from tests.memory.recall_chats import turn_lines

KEYS = "I left my keys in the blue drawer by the front door."
DOG = "Our dog is called Biscuit, a scruffy little terrier."
SISTER = "My sister Mina just moved to Lisbon for a design job."
WORK = "Long night again, being a paramedic means twelve-hour shifts."
FILLER = [
    ("The weather turned cold this week.", "Wrap up warm then."),
    ("I tried a new soup recipe with lentils.", "Lentils are great in winter."),
    ("The train was late again this morning.", "That happens a lot lately."),
    ("We watched a film about pirates last night.", "Pirates never get old."),
    ("The neighbours are painting their fence green.", "Bold choice of colour."),
    ("I bought new running shoes on Saturday.", "Did you test them yet?"),
    ("My phone battery dies so fast now.", "Maybe it needs replacing."),
    ("The garden is full of snails after the rain.", "Snails love the wet."),
]
# Lines the typed questions' other words lead to when their key words are misspelt.
NEAR_MISSES = [
    ("I put the groceries in the fridge before leaving.", "Good, the milk would spoil."),
    ("Where did you put the remote last night?", "Under the sofa cushion, I think."),
    ("I put my bike in the shed because of the storm.", "Smart move."),
    ("What's the name of that cafe on the corner?", "The Copper Kettle, I believe."),
    ("Our cat knocked a glass off the table again.", "Cats will be cats."),
    ("My brother keeps calling about the wedding plans.", "Family stuff is a lot."),
    ("Did I ever tell you about the trip to the mountains?", "Not yet, tell me!"),
    ("What do you do for fun on weekends?", "Mostly reading and walks."),
    ("My job interview went fine, I think.", "Fingers crossed for you."),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma") / "chroma_db")
    pairs = [FILLER[0], (KEYS, "Noted, the blue drawer."), *FILLER[1:3], *NEAR_MISSES[0:2],
             (DOG, "Biscuit sounds adorable."), *FILLER[3:5], *NEAR_MISSES[2:4],
             (SISTER, "Lisbon is lovely."), *FILLER[5:7], *NEAR_MISSES[4:6],
             (WORK, "That sounds exhausting."), *FILLER[7:], *NEAR_MISSES[6:]]
    index.add_turns(instance_id="inst_001", character_id="char_001", background_id=None,
                    session_id="sess_001", turns=turn_lines(*pairs))
    return index


QUESTIONS = [
    ("whre did i put my kyes", KEYS),
    ("waht's our dgo's nmae", DOG),
    ("did i evr tell u about my sistr", SISTER),
    ("wht do i do for wrok, my job as a paramdic", WORK),
]


def _first_text(index, question):
    result = query_user_history(question, "inst_001", index=index, force=True, k=5)
    return result.hits[0].text


@pytest.mark.parametrize(("question", "answer"), QUESTIONS)
def test_a_typed_question_finds_the_line_it_asks_for_first(index, question, answer):
    assert _first_text(index, question) == answer


@pytest.mark.parametrize(("question", "answer"), QUESTIONS)
def test_without_correction_the_typed_question_finds_another_line_first(
        index, question, answer, monkeypatch):
    """What the correction mends: as typed, each question finds another line first."""
    monkeypatch.setattr(typos, "MAX_CORRECTED", 0)
    assert _first_text(index, question) != answer


def test_the_corrections_are_the_words_meant(index):
    changes = typos_read("whre did i put my kyes, did i evr tell u about my sistr", index,
                         ["inst_001"]).changes
    assert changes == {"whre": "where", "kyes": "keys", "evr": "ever", "sistr": "sister"}


@pytest.mark.parametrize("question", [
    "where did i put my keys?",
    "what is our dog called?",
    "Did Mina like Lisbon?",  # names stay, the known words too
    "Did Lisbn suit Minna?",  # a capitalised word inside a sentence is a name: not ours
    "我的狗叫什么名字？你还记得吗",
    "我妹妹搬到哪里去了？",
    # Words the said-instead table knows are meant as typed, though no line says them.
    "remember my pups name", "whats my doggos name",
])
def test_known_words_names_and_chinese_are_left_as_typed(index, question):
    corrected = typos_read(question, index, ["inst_001"])
    assert corrected.text == question and corrected.changes == {}


def test_a_long_garbage_message_is_read_only_so_far(index):
    garbage = "xq" * 100_000 + " " + "qzkv sistr " * 20_000
    corrected = typos_read(garbage, index, ["inst_001"])
    assert len(corrected.changes) <= MAX_CORRECTED
    assert corrected.text.endswith("qzkv sistr " * (20_000 - MAX_WORDS))


def test_no_more_words_than_allowed_are_corrected():
    words = ["sistr", "kyes", "dgo", "wrok", "drawr", "frnt", "scruffyy", "terirer"]

    class Every:
        def counts(self, terms):
            return {term: 1 for term in terms}

        def like(self, *, first, lengths, limit):
            return []

    known = {"sister", "key", "dog", "work", "drawer", "front", "scruffi", "terrier"}

    class Session(Every):
        def counts(self, terms):
            return {term: int(term in known) for term in terms}

    corrected = typos_correct(" ".join(words), Session())
    assert len(corrected.changes) == MAX_CORRECTED
    assert typos_correct(" ".join(words), Every()).changes == {}  # every word known


def test_an_unreadable_keyword_index_corrects_nothing():
    class Broken:
        keywords = None

    assert typos_read("whre are my kyes", Broken(), ["inst_001"]).changes == {}


def test_an_english_word_the_session_lacks_is_not_taken_for_a_slip():
    class Session:
        def counts(self, terms):
            return {term: int(term in {"disgust", "chill", "film", "pike", "sushi", "chunk",
                                       "saga", "hopeing", "book"})
                    for term in terms}

        def like(self, *, first, lengths, limit):
            return []

    assert typos_correct("what were we discussing about the child", Session()).changes == {}
    assert typos_correct("what flims were we discussing", Session()).changes == {
        "flims": "films"}
    # A chat word the models' vocabularies lack is no slip of a word the session holds.
    assert typos_correct("that food that made u puke at a sushi place", Session()).changes == {}
    # "hyping" was "corrected" to a slip a line of the session held ("hopeing").
    assert typos_correct("whats that book u kept hyping", Session()).changes == {}
    assert typos_correct("some game w loot box pulls", _Saying({"lot": 9})).changes == {}
    # Nor is a word made with "re" or "un" ("repaint" was "corrected" to "reprint"); a slip
    # that only starts so still is one.
    assert english("repaint") and english("rewatched") and english("unfollow")
    assert not english("recieve") and not english("remeber")
    # A "y" makes a word of a thing ("chunky" was "corrected" to "chunks"), but not after "al"
    # or "y", where it is a slip of "-ally" or a doubled key.
    assert english("chunky") and english("foggy") and english("cheesy")
    assert not english("realy") and not english("usualy") and not english("everyy")
    assert typos_correct("whats that chunky family saga", Session()).changes == {}
    # No word of the session is as near: an English word, for the dense side to read.
    assert typos_correct("any hobbbies", Session()).changes == {"hobbbies": "hobbies"}


def test_a_word_chat_shortens_is_written_out_unless_the_session_says_it():
    class Session:
        def __init__(self, said):
            self.said = said

        def counts(self, terms):
            return {term: int(term in self.said) for term in terms}

        def like(self, *, first, lengths, limit):
            return []

    # "uni" was read as a slip of "unit", a word the session held.
    assert typos_correct("what am i studying at uni again?", Session({"unit", "studi"})
                         ).text == "what am i studying at university again?"
    assert typos_correct("when is my gf's bday", Session(set())).changes == {
        "gf": "girlfriend", "bday": "birthday"}
    assert typos_correct("what am i studying at uni again?", Session({"uni"})).changes == {}
    # "temp" was read as a slip of "tempo", a word the session held.
    assert typos_correct("what did i say the perfect temp was", Session({"tempo", "temperatur"})
                         ).changes == {"temp": "temperature"}
    # "wknd" was read as a slip of "wind", "tmrw" of "tomorow", "prob" as "probe".
    assert typos_correct("wanna go back this wknd", Session({"wind", "weekend"})
                         ).text == "want to go back this weekend"
    assert typos_correct("what's on tmrw", Session({"tomorow"})).changes == {"tmrw": "tomorrow"}
    # "pic" and "wanna" are written out too: a line says "picture", "want to".
    assert typos_correct("where was that sunset pic from", Session(set())).changes == {
        "pic": "picture"}
    assert typos_correct("what did she wanna start", Session(set())).changes == {
        "wanna": "want to"}
    # "yrs" had become "yours".
    assert typos_correct("how many yrs was he w us", Session({"yours"})).changes == {
        "yrs": "years"}
    # "smth" had become "smith", a name the session held.
    assert typos_correct("i put together smth for the kids", Session({"smith"})).changes == {
        "smth": "something"}
    assert typos_correct("where'd i say i prob caught it", Session({"probe"})
                         ).changes == {"prob": "probably"}
    # "bdays" had become "brays", "nye" "nys".
    assert typos_correct("what do i always make for bdays", Session({"bray"})).changes == {
        "bdays": "birthdays"}
    assert typos_correct("the show my friends saw on nye", Session({"ny"})).changes == {
        "nye": "new year's eve"}
    # "missus" was read as a slip of "missys".
    assert typos_correct("what present did the missus get me again", Session({"missi"})
                         ).changes == {"missus": "wife"}


PETS = [
    ("We have two pets now, a cat and a rabbit.", "Two pets is a lot of feeding."),
    ("The pets woke me at dawn again.", "Pets have no sense of weekends."),
    ("I took the pets to the vet for their shots.", "Hope they were brave."),
    ("We had dinner at the harbour on Friday.", "Sounds lovely."),
    ("Dinner was fish and chips.", "A classic."),
    ("After dinner we walked along the pier.", "Nice end to the day."),
    ("I wrote my plan for the garden.", "Share it when it is done."),
]


@pytest.fixture(scope="module")
def pets_index(tmp_path_factory):
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("pets") / "chroma_db")
    index.add_turns(instance_id="inst_pets", character_id="char_001", background_id=None,
                    session_id="sess_001", turns=turn_lines(*PETS), keywords_only=True)
    return index


@pytest.mark.parametrize(("question", "changes"), [
    ("how many pest do we have", {"pest": "pets"}),  # two letters swapped
    ("where did we have diner on friday", {"diner": "dinner"}),  # a letter dropped
])
def test_a_slip_that_makes_another_word_is_read_as_the_word_the_session_says(
        pets_index, question, changes):
    assert typos_read(question, pets_index, ["inst_pets"]).changes == changes


@pytest.mark.parametrize("question", [
    "what did we have for dinner",  # a word the session holds
    "what was the plane like",  # "plan" is said once, and commoner: "plane" is meant
    "did the carpet need cleaning",  # nothing the session says is one slip away
])
def test_a_clean_question_in_a_session_is_left_as_typed(pets_index, question):
    corrected = typos_read(question, pets_index, ["inst_pets"])
    assert corrected.changes == {} and corrected.text == question


class _Saying:
    """A session whose lines hold these terms so many times."""

    def __init__(self, said: dict[str, int]) -> None:
        self.said = said

    def counts(self, terms):
        return {term: self.said.get(term, 0) for term in terms}

    def like(self, *, first, lengths, limit):
        return []


def test_an_english_word_is_read_as_a_slip_only_of_a_commoner_word_the_session_says_often():
    """"pest" is rarer than "pets" and "plane" than "plan": the one read as a slip of the
    other only when the session says the other in REAL_WORD_SAID lines or more."""
    session = _Saying({"plan": 9, "pet": 9})
    assert typos_correct("how was the plane", session).changes == {}
    assert typos_correct("how are the pest", session).changes == {"pest": "pets"}
    seldom = _Saying({"pet": typos.REAL_WORD_SAID - 1})
    assert typos_correct("how are the pest", seldom).changes == {}
    # A word and the same word with an ending are no slip of each other ("creep" was
    # "corrected" to the "creepy" the session said).
    assert typos_correct("that creep of an ex", _Saying({"creepi": 9})).changes == {}


def test_a_slip_of_the_first_letter_is_read_when_nothing_after_it_explains_the_word():
    """"rhe" and "eho": a key next to the first letter makes a stop word; "aister": a word the
    session says often. A word that a slip after its first letter explains is read so."""
    session = _Saying({"sister": typos.REAL_WORD_SAID, "key": 1})
    assert typos_correct("where are rhe keys", session).changes == {"rhe": "the"}
    assert typos_correct("eho is my aister", session).changes == {"eho": "who",
                                                                   "aister": "sister"}
    assert typos_correct("where is my sistr", session).changes == {"sistr": "sister"}
    seldom = _Saying({"sister": typos.REAL_WORD_SAID - 1})
    assert typos_correct("eho is my aister", seldom).changes == {"eho": "who"}
    # "dace": "dance" by a dropped letter, a word the session holds (stem "danc"), not "face".
    assert typos_correct("did she run a dace", _Saying({"danc": 3, "face": 9})).changes == {
        "dace": "dance"}
