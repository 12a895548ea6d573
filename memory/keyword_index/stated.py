"""How a fact is told without any word of its kind, read of the player's own lines: a job as
what one does and where ("I pour drinks at a bar downtown", 我在支行管信贷业务), a home town, an
age as a number, a fear as what one cannot make oneself do, a boss by what he does to the teller,
a name before who the person is, a pastime by the love of doing it. The keyword index marks such
lines (stated_marks) and a question of the kind counts the mark as its own word
(memory/keyword_index/said_instead.py query_terms); memory/recall/whose.py reads them for the
asker's own fact (stated).
"""

from __future__ import annotations

import re

# The people one speaks of, kin and the people of work and school (memory/recall/whose.py
# reads whose fact a line tells by them). "我表弟多大了？" asks an age, "房子多大？" a size.
PEOPLE_ZH = ("上司", "领导", "老板", "同事", "下属", "朋友", "同学", "室友", "邻居", "哥", "姐",
             "弟", "妹", "爸", "妈", "父", "母", "儿子", "女儿", "孩子", "老公", "老婆", "丈夫",
             "妻子", "男朋友", "女朋友", "男友", "女友", "对象", "表", "堂", "叔", "伯", "姑", "舅",
             "姨", "婶", "嫂", "爷", "奶", "外公", "外婆", "侄", "闺蜜", "师傅", "老师", "手下",
             "员工")
# The words that are a person by themselves ("表" and "堂" only start one: "手表" is a watch).
PERSONS_ZH = tuple(p for p in PEOPLE_ZH if p not in ("表", "堂"))

# How a fact of a kind is told without any word of its row, keyed by the row's first key: a
# job as where one works and what one does there ("我在青岛一家酒店掌勺", "我在支行管信贷业务":
# 在, a place ending as workplaces end, a verb of doing; "I pour drinks at a bar"), an age as a
# number ("I'm 24", "I turned 29", "今年三十五了", "31岁"). Read only of the asker's own lines,
# for a question about the asker's own fact (memory/recall/whose.py told_by_asker): no keyword
# can find them.
_WORKPLACE_ZH = "(?:公司|店|厂|院|行|局|所|馆|校|站|部|社|中心|单位|工地|集团|机构)"
_NUMBER_ZH = "[0-9一二两三四五六七八九十]{1,3}"
_CLAUSE_ZH = "[^，,。.！!？?；;\\s]"
# An English job told as what one does and where or for whom ("I pour drinks at a bar
# downtown", "i stock shelves at a grocery store", "I fix up old houses for people"): "I", a verb
# of doing in the present, its object, then "at a" place or "for" the people served. Verbs that
# are not a job's are out: being, having, going, staying, eating, meeting, feeling, wanting,
# modals and common past forms (a past "-ed" is out too: "I vanished at a party").
_NOT_DOING_EN = ("am", "was", "were", "be", "have", "had", "get", "got", "go", "went", "live",
                 "stay", "eat", "ate", "meet", "met", "see", "saw", "sit", "sat", "look", "come",
                 "came", "run", "ran", "think", "thought", "guess", "hope", "want", "need",
                 "love", "like", "wish", "feel", "felt", "know", "knew", "mean", "wonder",
                 "can", "could", "will", "would", "should", "might", "must", "may", "did",
                 "left", "made", "took", "bought", "found", "heard", "told", "said", "spent",
                 "slept", "woke", "paid", "lost", "won", "sang", "just", "really",
                 "never", "once", "kinda", "sorta", "even", "only", "then")
_ADVERBS_EN = ("also", "still", "now", "mostly", "usually", "basically", "currently",
               "actually", "just")
_DOING_EN = (rf"(?<![a-z'’])i\s+(?:(?:{'|'.join(_ADVERBS_EN)})\s+)?"
             rf"(?!(?:{'|'.join(_NOT_DOING_EN)})\b)[a-z]{{2,}}(?<!ed)"
             r"|(?<![a-z'’])i(?:['’]ve|\s+have)\s+been\s+[a-z]{2,}ing")
_WORKPLACES_EN = ("company", "firm", "studio", "startup", "agency", "store", "shop", "restaurant",
                  "bakery", "hospital", "clinic", "school", "bank", "hotel", "cafe", "café",
                  "magazine", "newspaper", "nonprofit", "charity", "publisher", "brand")
# "我是老实人", "我是过来人": a kind of person, not where one is from.
_KINDS_OF_PEOPLE_ZH = ("老实", "好", "坏", "普通", "正常", "明白", "自己", "局外", "过来", "文化",
                       "读书", "有钱", "穷", "年轻", "老", "男", "女", "大", "成年", "病", "客",
                       "外", "本", "主", "家里", "城里", "乡下", "外行", "内行", "急性子", "直肠子")
_SERVED_EN = (r"(?:at\s+an?\s|for\s+(?:people|folks|customers|clients|a\s+living)\b"
              rf"|for\s+an?\s+(?:[a-z'’-]+\s+){{0,2}}?(?:{'|'.join(_WORKPLACES_EN)})\b)")
STATED: dict[str, re.Pattern[str]] = {
    "job": re.compile(rf"(?:{_DOING_EN})\s+(?:[a-z'’-]+\s+){{0,4}}?{_SERVED_EN}"),
    "职业": re.compile(rf"在{_CLAUSE_ZH}{{0,12}}?{_WORKPLACE_ZH}{_CLAUSE_ZH}{{0,3}}?"
                     r"(?:当|做|干|管|负责|掌勺|教|带|跑|值班|上班|工作|打工|实习)"),
    # A home town told as where one is from ("I'm originally from Leeds", 我是成都人,
    # "我是盐城乡下出来的"): "from" and 是 are stop words, and "我是好人" is no home town.
    "hometown": re.compile(r"(?<![a-z'’])(?:i'?m|i am)\s+(?:originally\s+)?from\s+"
                           r"(?!work|school|the\s+(?:office|gym|store|future))[a-z]"),
    "哪里人": re.compile(rf"我是(?!个|一个|(?:{'|'.join(_KINDS_OF_PEOPLE_ZH)})人)"
                       r"[^，,。.！!？?；;\s的个了]{2,8}?(?:人|出来的)(?![才物士员])"),
    "how old": re.compile(r"(?<![a-z'’])(?:i'?m|i am|turned|turning|just turned)\s+\d{1,2}"
                          r"(?![\d:.,]?\d)(?!\s*(?:am|pm|min|minutes|hours|mins|%|dollars|bucks))"
                          r"|\d{1,3}\s*(?:years?|yrs?)[\s-]old"),
    "多大了": re.compile(rf"{_NUMBER_ZH}\s*岁|今年{_NUMBER_ZH}(?:了|岁)"),
    # A fear told as what one cannot make oneself do, or what one is scared of ("I still can't
    # make myself get on a plane", "heights freak me out", 我一直不敢坐飞机).
    "phobia": re.compile(r"(?<![a-z'’])(?:can['’]?t|cannot|could\s+never|never\s+could)\s+"
                         r"(?:make|bring|get)\s+myself\b"
                         r"|(?<![a-z'’])(?:afraid|scared|terrified|petrified|frightened)\s+of\s"
                         r"|freak(?:s|ed)?\s+me\s+out"),
    # A boss told by what he does to the teller ("Chief Ramirez put me back on the night
    # rotation", "the head pharmacist karen chewed me out again", 领导把我调到夜班).
    "boss": re.compile(r"(?<![a-z'’])(?:put|moved|switched|scheduled|assigned|stuck)\s+me\s+"
                       r"(?:back\s+)?on\s+(?:the\s+|a\s+)?(?:[a-z-]+\s+){0,2}?"
                       r"(?:shift|shifts|rotation|schedule|duty|project|team|case|account)\b"
                       r"|(?<![a-z'’])(?:chewed|wrote)\s+me\s+(?:out|up)\b"
                       r"|(?<![a-z'’])(?:gave|give|gives|giving)\s+me\s+(?:a\s+)?"
                       r"(?:raise|promotion|written\s+warning|write-?up|performance\s+review)\b"
                       r"|(?<![a-z'’])(?:fired|promoted|demoted|hired)\s+me\b"),
    "领导": re.compile(r"(?:把我|让我|给我|叫我)[^，,。.！!？?；;\s]{0,4}?"
                     r"(?:调|派|安排|加班|值班|涨|加薪|升职|降职|辞退|开除)|(?:批评|骂|训|表扬)了我"),
    # A person's name told before who they are to the teller ("赵宇轩是我的上司，…"): a name
    # asked (名字, 叫啥) finds no word of it.
    "名字": re.compile(r"(?:^|[，,。.！!？?；;\s])[\u4e00-\u9fff]{2,3}是我的?"
                     rf"(?:{'|'.join(PEOPLE_ZH)})"),
    "害怕": re.compile(r"我(?:一直|从小就?|特别|最|很|有点|挺|真)?(?:怕|害怕|不敢)"),
    # A pastime told as what one loves doing ("我舅舅特别爱学外语", "I'm really into
    # bouldering"): 喜欢 alone is said of anything, a verb of doing after it is a pastime.
    "hobby": re.compile(r"(?<![a-z'’])(?<!you['’]ve )(?<!you have )(?:i'?m|i am|been|getting)\s+"
                        r"(?:really\s+|super\s+|so\s+|totally\s+|very\s+|kinda\s+|big\s+)?into\s+"
                        r"(?!it\b|that\b|this\b|the\s|a\s|an\s|trouble\b|bed\b|town\b|work\b|"
                        r"college|school|uni|traffic|lately|recently)[a-z]"),
    "爱好": re.compile(r"(?<!不)(?:爱|喜欢)(?:学|练|打|下|玩|做|编|集|攀|画|弹|拉|唱|跳|捣鼓|"
                     r"种|养|拍|写|钓|爬|登|骑|滑|游|逛|收藏|研究|折腾)|迷上|热衷|沉迷|痴迷"),
}


def stated(line: str, words: tuple[str, ...]) -> bool:
    """Whether the lower-cased `line` tells a fact of the kind `words` (kinds_asked's words of
    one row) is, the way STATED reads it."""
    pattern = STATED.get(words[0]) if words else None
    return pattern is not None and pattern.search(line) is not None


# The keyword index marks the player's lines that STATED reads as telling a fact of its kind
# ("I test games for a studio", "我在支行管信贷业务"): no word of the question is in them, so
# without the mark they were found only when the dense side brought them. A mark is no token
# text_tokenize makes (those are letters, digits and Chinese characters).
STATED_MARK = "~stated:"
# Kinds whose mark counts only for a question that names one of these words: a name told before
# who the person is ("赵宇轩是我的上司") answers "我上司叫啥", not "我小名叫啥" (the asker's own
# nickname, whose line fell from the first ten behind every such line).
MARK_ASKED_WITH = {"名字": PEOPLE_ZH}
STATED_SCAN_CHARS = 2000  # of a line, the first characters are read for a mark


# What a line holds before a kind's pattern is worth reading: every player's line of an import
# is read, and most hold none of these (read ungated, the patterns took half as long again as
# tokenizing the line).
_STATED_NEEDS = {"job": ("i ", "i\t", "i\n", "i'", "i’"), "职业": ("在",), "hometown": ("from",),
                 "哪里人": ("我是",), "how old": tuple("0123456789"), "多大了": ("岁", "今年"),
                 "phobia": ("myself", "afraid", "scared", "terrified", "petrified", "frightened",
                            "freak"),
                 "害怕": ("怕", "不敢"), "boss": (" me ", " me\n", " me\t"),
                 "领导": ("把我", "让我", "给我", "叫我", "了我"), "名字": ("是我",),
                 "hobby": ("into",), "爱好": ("爱", "喜欢", "迷上", "热衷", "沉迷", "痴迷")}


def stated_marks(text: str) -> list[str]:
    """The marks of the kinds of fact the player's line `text` tells as STATED reads them."""
    lowered = text[:STATED_SCAN_CHARS].lower()
    return [STATED_MARK + kind for kind, pattern in STATED.items()
            if any(part in lowered for part in _STATED_NEEDS[kind]) and pattern.search(lowered)]
