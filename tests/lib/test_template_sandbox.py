"""Attacks on the staff-edited prompt templates: each is refused with a clear TemplateError,
quickly and without building the huge value it asks for."""

from __future__ import annotations

import pytest

from personalab.lib.template_sandbox import TemplateError, render_template

ATTACKS = [
    ("{{ '%300000000d' % 1 }}", "format width"),
    ("{{ '%*d' % (300000000, 1) }}", "'*' widths"),
    ("{{ '{:300000000}'.format(1) }}", "format width"),
    ("{{ '{:{w}}'.format(1, w=300000000) }}", "nested format"),
    ("{{ '%300000000d'|format(1) }}", "format width"),
    ("{{ 'x'|center(300000000) }}", "center width"),
    ("{{ (['x'*100000]*20000)|join }}", "repetition"),
    ("{{ 'x' * 100000000 }}", "repetition"),
    ("{% set s = 'x' * 60000 %}{{ s ~ s }}", "joined text"),
    ("{% set s = 'x' * 60000 %}{{ s + s }}", "sum"),
    ("{{ range(10000)|join('y' * 50000) }}", "joined text"),
    ("{{ ('x' * 50000)|replace('x', 'yyyy') }}", "replaced text"),
    ("{{ 'a\nb'|indent(300000000) }}", "indented text"),
    ("{{ [1]|batch(300000000, 'x')|list }}", "batch width"),
    ("{{ range(10**9)|list }}", "range of"),
    ("{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}",
     "loop iterations"),
    ("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}",
     "loop iterations and calls"),
    ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "nest too deeply"),
    ("{% for i in range(9999) %}{{ 'x' * 99 }}{% endfor %}", "output longer"),
]


@pytest.mark.parametrize(("source", "words"), ATTACKS)
def test_template_attack_is_refused_with_a_clear_error(source, words):
    with pytest.raises(TemplateError) as error:
        render_template(source, {})
    assert words in str(error.value)


def test_ordinary_templates_still_work():
    source = ("{% for p in outline %}{{ loop.index }}. {{ p.content }} ({{ '%-8s'|format(p.s) }})"
              "{% endfor %}|{{ '{:>5}'.format(char) }}|{{ title ~ '!' }}|{{ 'ab' * 3 }}"
              "|{{ names|join(', ') }}|{{ 'x'|center(5) }}|{{ range(3)|list }}")
    text = render_template(source, {"outline": [{"content": "Find", "s": "done"}],
                                    "char": "Al", "title": "T", "names": ["a", "b"]})
    assert text == "1. Find (done    )|   Al|T!|ababab|a, b|  x  |[0, 1, 2]"


def test_the_budget_is_per_render():
    source = "{% for i in range(9000) %}{% endfor %}ok"
    assert [render_template(source, {}) for _ in range(20)] == ["ok"] * 20
