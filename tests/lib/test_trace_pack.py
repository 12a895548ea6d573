"""A trace is stored without its copies and read back whole (personalab/lib/trace_pack.py)."""

from __future__ import annotations

import copy
import json

from personalab.lib.trace_pack import trace_packed, trace_unpacked

LINE = {"id": "turn_sess_001_3_user", "collection": "turns", "instance_id": "inst_001",
        "text": "We hid the key under the old water tower.", "role": "user",
        "speaker": "Ann", "date": "2025-10-16"}
OTHER = {**LINE, "id": "turn_sess_001_3_assistant", "role": "assistant", "speaker": "Bob",
         "text": "Nobody will look there."}
SECTIONS = [{"name": "base_persona", "text": "=== Persona ===\nA smuggler."},
            {"name": "lore", "text": ""},
            {"name": "recalled", "text": "=== Recalled ===\n- Ann: We hid the key under the old water tower."}]


def _trace() -> dict:
    return {
        "trace_id": "tr_1", "instance_id": "inst_001",
        "retrievals": {"mode": "shallow", "hits": [{**LINE, "source": "sess_001 3", "score": 0.9}],
                       "passages": [{"source": "sess_001 3", "date": "2025-10-16",
                                     "lines": [{**LINE, "recalled": True}, {**OTHER, "recalled": False}]}]},
        "sections": SECTIONS,
        "messages": [{"role": "system", "content": SECTIONS[0]["text"] + "\n\n" + SECTIONS[2]["text"]},
                     {"lines": [0, 4]},
                     {"role": "user", "content": "Where is the key?"}],
    }


def test_a_recalled_line_and_the_joined_sections_are_stored_once_and_read_back_whole():
    trace = _trace()
    made = copy.deepcopy(trace)
    packed = trace_packed(trace)
    assert trace == made  # the caller's trace is left alone
    stored = json.dumps(packed)
    assert stored.count(LINE["text"]) == 2  # the passage and the recalled section
    assert packed["messages"][0] == {"role": "system", "sections": [0, 2]}
    assert trace_unpacked(json.loads(stored)) == made


def test_what_the_packing_cannot_find_is_kept_as_it_was():
    trace = _trace()
    trace["retrievals"]["hits"].append({**OTHER, "id": "elsewhere", "source": "x", "score": 0.1})
    trace["retrievals"]["hits"].append({**LINE, "text": "an older wording", "source": "x",
                                        "score": 0.2})
    trace["messages"][0]["content"] += " (edited)"
    made = copy.deepcopy(trace)
    packed = trace_packed(trace)
    assert packed["retrievals"]["hits"][1:] == made["retrievals"]["hits"][1:]
    assert packed["messages"][0] == made["messages"][0]
    assert trace_unpacked(json.loads(json.dumps(packed))) == made


def test_a_trace_written_before_reads_as_it_is():
    old = _trace()
    assert trace_unpacked(copy.deepcopy(old)) == old
