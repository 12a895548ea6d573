"""Words chat shortens ("uni", "bday", "comp"): a question and a line may each say a thing
short or long, and the keyword side meets either with the other (said_instead.query_terms);
memory/recall/typos.py writes a short word out when no line of the session says it."""

from __future__ import annotations

from memory.keyword_index.tokens import text_tokenize

# Words chat shortens. A question typed short is searched for the long word when no line of the
# session says the short one (memory/recall/typos.py: "uni" is no slip of "unit", and the long
# word is the one other lines hold); a question saying the long word also meets a line that said
# it short ("what is my little brother training to be?" for "my lil bro just got into culinary
# school"), at ALTERNATIVE_WEIGHT, and a question typed short meets a line that said it long
# though some line says it short ("that comp i was putting on" for "hosting a dance competition",
# in a chat that also says "a dance comp"). The commonest, not every one.
CHAT_SHORT = {"uni": "university", "bday": "birthday", "bdays": "birthdays",
              "nye": "new year's eve", "xmas": "christmas", "bf": "boyfriend", "gf": "girlfriend",
              "bff": "best friend", "bestie": "best friend", "hubby": "husband",
              "missus": "wife", "wifey": "wife",
              "roomie": "roommate", "sis": "sister", "lil": "little",
              "fam": "family", "convo": "conversation", "fav": "favorite", "fave": "favorite",
              "pic": "picture", "pics": "pictures", "vid": "video", "vids": "videos",
              "insta": "instagram",
              "yt": "youtube", "ppl": "people", "appt": "appointment", "mins": "minutes",
              "hrs": "hours", "grad": "graduate", "undergrad": "undergraduate",
              "prof": "professor", "vacay": "vacation", "bball": "basketball",
              "temp": "temperature", "temps": "temperatures", "comp": "competition",
              "comps": "competitions", "wknd": "weekend", "tmrw": "tomorrow",
              "prob": "probably", "prolly": "probably", "wanna": "want to", "smth": "something",
              "yrs": "years", "yr": "year",
              "tourney": "tournament", "tourneys": "tournaments"}


def _said_short() -> dict[str, tuple[tuple[str, ...], ...]]:
    shorts: dict[str, list[tuple[str, ...]]] = {}
    # "bro" is also a way to address someone (a filler in a question: memory/recall/queries.py),
    # so it is only looked for in lines.
    for short, word in {**CHAT_SHORT, "bro": "brother"}.items():
        stems, short_stems = text_tokenize(word), text_tokenize(short)
        if len(stems) == 1 and short_stems and short_stems != stems:
            shorts.setdefault(stems[0], []).append(tuple(short_stems))
            if len(short_stems) == 1 and short != "bro":
                shorts.setdefault(short_stems[0], []).append(tuple(stems))
    return {stem: tuple(dict.fromkeys(runs)) for stem, runs in shorts.items()}


# A question's word (its stem) -> the short words a line may say instead; a short word's stem
# -> the long word.
SAID_SHORT = _said_short()
