"""A trace as stored, without the copies of what it already holds, and back as readers see it.

A turn that recalls fills a quarter of the window with recalled lines, and its trace used to
hold each of them four times: in the hits, in the passages, in the recalled section's text and in
the system message joining the sections (about 90 KB a turn at a 16,384-token window). Stored,
a hit keeps its id, source and score and takes its text from the passage line that shows it;
a message that is the sections' texts joined as sent keeps only which sections. Reading puts
both back, so every reader (pages, API, reindex, benchmarks) sees the trace as it was made;
a trace written before keeps its copies and reads as it is.
"""

from __future__ import annotations

from typing import Any

SECTION_JOIN = "\n\n"  # how the prompt joins the sections of one message
_HIT_FROM_LINE = ("text", "role", "speaker", "date")


def trace_packed(trace: dict[str, Any]) -> dict[str, Any]:
    """`trace` as stored (a new dict; `trace` itself is left alone)."""
    packed = dict(trace)
    retrievals = trace.get("retrievals")
    if isinstance(retrievals, dict) and isinstance(retrievals.get("hits"), list):
        packed["retrievals"] = {**retrievals, "hits": _hits_packed(retrievals)}
    if isinstance(trace.get("messages"), list) and isinstance(trace.get("sections"), list):
        packed["messages"] = [_message_packed(message, trace["sections"])
                              for message in trace["messages"]]
    return packed


def trace_unpacked(trace: dict[str, Any]) -> dict[str, Any]:
    """A stored trace as it was made (in place; returned for convenience)."""
    retrievals = trace.get("retrievals")
    if isinstance(retrievals, dict) and isinstance(retrievals.get("hits"), list):
        lines = _passage_lines(retrievals)
        retrievals["hits"] = [_hit_unpacked(hit, lines) for hit in retrievals["hits"]]
    sections = trace.get("sections")
    if isinstance(trace.get("messages"), list) and isinstance(sections, list):
        trace["messages"] = [_message_unpacked(message, sections)
                             for message in trace["messages"]]
    return trace


def _line_key(item: dict[str, Any]) -> tuple[str, str, str]:
    return (str(item.get("collection") or ""), str(item.get("instance_id") or ""),
            str(item.get("id") or ""))


def _passage_lines(retrievals: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    lines: dict[tuple[str, str, str], dict[str, Any]] = {}
    for passage in retrievals.get("passages") or []:
        for line in passage.get("lines") or [] if isinstance(passage, dict) else []:
            if isinstance(line, dict) and line.get("id"):
                lines.setdefault(_line_key(line), line)
    return lines


def _hits_packed(retrievals: dict[str, Any]) -> list[Any]:
    lines = _passage_lines(retrievals)
    packed = []
    for hit in retrievals["hits"]:
        line = lines.get(_line_key(hit)) if isinstance(hit, dict) else None
        if line is None or any(hit.get(key) != line.get(key) for key in _HIT_FROM_LINE):
            packed.append(hit)  # not shown by a passage as it is: kept whole
            continue
        packed.append({key: value for key, value in hit.items() if key not in _HIT_FROM_LINE})
    return packed


def _hit_unpacked(hit: Any, lines: dict[tuple[str, str, str], dict[str, Any]]) -> Any:
    if not isinstance(hit, dict) or "text" in hit:
        return hit
    line = lines.get(_line_key(hit))
    if line is None:
        return {**hit, "text": ""}  # a hand-edited trace: say nothing rather than fail
    return {**hit, **{key: line.get(key, "") for key in _HIT_FROM_LINE}}


def _section_texts(sections: list[Any]) -> list[tuple[int, str]]:
    return [(position, section["text"]) for position, section in enumerate(sections)
            if isinstance(section, dict) and isinstance(section.get("text"), str)
            and section["text"]]


def _message_packed(message: Any, sections: list[Any]) -> Any:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not content or "lines" in message:
        return message
    texts = _section_texts(sections)
    for start in range(len(texts)):
        joined = ""
        for end in range(start, len(texts)):
            joined = texts[end][1] if end == start else joined + SECTION_JOIN + texts[end][1]
            if joined == content:
                return {**{key: value for key, value in message.items() if key != "content"},
                        "sections": [texts[start][0], texts[end][0]]}
            if not content.startswith(joined):
                break
    return message


def _message_unpacked(message: Any, sections: list[Any]) -> Any:
    refer = message.get("sections") if isinstance(message, dict) else None
    if (not isinstance(refer, list) or "content" in message or len(refer) != 2
            or not all(isinstance(position, int) for position in refer)):
        return message
    first, last = refer
    content = SECTION_JOIN.join(text for position, text in _section_texts(sections)
                                if first <= position <= last)
    return {**{key: value for key, value in message.items() if key != "sections"},
            "content": content}
