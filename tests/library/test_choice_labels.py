"""The shown names of SillyTavern setting values (library/templatetags/choice_labels.py)."""

from __future__ import annotations

from django.template import engines
from django.utils import translation

TEMPLATE = engines["django"].from_string(
    "{% load choice_labels %}{% for o in values %}[{{ o|choice_label }}]{% endfor %}")


def test_a_known_value_is_named_in_the_pages_language_and_any_other_is_shown_escaped() -> None:
    values = ["an_top", "depth", "assistant", "<b>x</b>", None]
    assert TEMPLATE.render({"values": values}) == (
        "[top of the author's note][at a depth][assistant][&lt;b&gt;x&lt;/b&gt;][None]")
    with translation.override("zh-hans"):
        shown = TEMPLATE.render({"values": ["depth"]})
    assert shown == "[按深度插入]"
