"""Preferences read from the first pass's best hits. Framework-free and pure.

Real chats keep to a topic for a while: the lines that answer a question often sit in the
session where several of the first pass's best hits sit ("How do you feel about olives" /
"Theyre disgusting"), even when they share no word with the question. `session_prefer` adds a
small bonus to the lines of such sessions, in proportion to how much of the best hits' score each
session holds. It is a preference, never a filter: a line of another session still ranks on its
own score.

A line is also context for the lines around it: the question a strong hit answers, or the
answer that follows a strong hit, often holds what is asked and shares no word with it ("Do you
like olives?" / "Theyre disgusting"). `neighbours_share` gives the lines around each of the
best hits a share of that hit's score.

Pseudo-relevance feedback was measured too and is not used: the question's vector plus the mean
vector of the first pass's five best lines (Rocchio), or their words as a second keyword search,
moved REALTALK recall@10 by -0.008..+0.001 (README, Recall).
"""

from __future__ import annotations

Key = tuple[str, str, str]  # collection, instance_id, doc_id
# One hit alone makes no session stand out.
SESSION_HITS_MIN = 2


def turn_session(key: Key) -> tuple[str, str] | None:
    """(instance_id, session_id) of a turn's key (`turn_sess_003_12_user`), None for others."""
    collection, instance_id, doc_id = key
    if collection != "turns" or not doc_id.startswith("turn_"):
        return None
    parts = doc_id[len("turn_"):].rsplit("_", 2)
    return (instance_id, parts[0]) if len(parts) == 3 and parts[0] else None


def session_prefer(fused: dict[Key, float], *, top: int, bonus: float) -> dict[Key, float]:
    """Fused scores plus, for every turn of a session holding at least two of the `top` best
    documents, `bonus` times that session's share of their summed score relative to the best
    such session (whose lines get the whole bonus)."""
    if bonus <= 0 or not fused:
        return fused
    best = sorted(fused, key=lambda key: (-fused[key], key))[:top]
    mass: dict[tuple[str, str], float] = {}
    count: dict[tuple[str, str], int] = {}
    for key in best:
        session = turn_session(key)
        if session is not None:
            mass[session] = mass.get(session, 0.0) + max(fused[key], 0.0)
            count[session] = count.get(session, 0) + 1
    mass = {session: value for session, value in mass.items()
            if count[session] >= SESSION_HITS_MIN and value > 0}
    if not mass:
        return fused
    most = max(mass.values())
    preferred = dict(fused)
    for key in fused:
        session = turn_session(key)
        if session in mass:
            preferred[key] += bonus * mass[session] / most
    return preferred


def turn_near(key: Key) -> list[Key]:
    """Keys of the lines around a turn as the app numbers them (turn N is a user line and its
    reply): a user line's reply and the reply before it, a reply's question and the next
    question. Where a turn lacks one of its lines (one side spoke twice in a row) the next
    turn's line stands in, so a few keys may name lines that do not exist: the caller drops
    those it cannot fetch."""
    collection, instance_id, doc_id = key
    session = turn_session(key)
    if session is None:
        return []
    try:
        turn = int(doc_id.rsplit("_", 2)[1])
    except ValueError:
        return []
    role = doc_id.rsplit("_", 1)[1]
    near = ([(turn, "assistant"), (turn + 1, "user"), (turn - 1, "assistant")] if role == "user"
            else [(turn, "user"), (turn + 1, "user"), (turn + 1, "assistant")])
    return [(collection, instance_id, f"turn_{session[1]}_{number}_{side}")
            for number, side in near if number >= 1]


def neighbours_share(fused: dict[Key, float], *, top: int, share: float) -> dict[Key, float]:
    """For the lines around each of the `top` best documents, `share` times that document's
    score (the largest when several give one); lines that score more on their own keep it."""
    if share <= 0:
        return {}
    shared: dict[Key, float] = {}
    for key in sorted(fused, key=lambda key: (-fused[key], key))[:top]:
        for near in turn_near(key):
            given = share * fused[key]
            if given > max(shared.get(near, 0.0), fused.get(near, 0.0)):
                shared[near] = given
    return shared
