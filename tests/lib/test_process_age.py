"""`make run`'s "ready (N s)" counts from the process's start (personalab/lib/process_age.py)."""

from __future__ import annotations

import sys

import pytest

from personalab.lib.process_age import age_from_proc, process_age_seconds

# /proc/self/stat of a process named "py (x) y": fields 3-21, then the start time (field 22).
STAT = "4242 (py (x) y) S " + " ".join(["0"] * 18) + " 1500 more fields"


def test_the_age_is_the_uptime_less_the_start_after_a_name_with_parentheses():
    assert age_from_proc(stat=STAT, uptime="40.00 70.00", ticks=100) == pytest.approx(25.0)


def test_a_stat_it_cannot_read_gives_no_age():
    assert age_from_proc(stat="4242 (py) S", uptime="40.00 70.00", ticks=100) is None
    assert age_from_proc(stat=STAT, uptime="", ticks=100) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_this_process_has_run_at_least_as_long_as_its_tests():
    age = process_age_seconds()
    assert age is not None and 0 < age < 24 * 3600
