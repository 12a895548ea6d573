"""The sandbox for staff-edited prompt templates: no unsafe attributes, and bounded work.

Framework-free (Jinja2 only). Author text never comes here: it only gets macros
(personalab/lib/macros.py). Templates are trusted a little, never with the machine: every value a
template builds (repetition, `+`, `~`, `%`, `.format`, `|format`, `|join`, `|replace`,
`|center`, `|indent`, `|batch`, `|slice`) is checked before it is made, `range` is short, and
loop iterations plus calls (macro recursion included) share one budget per render. A template
that passes a limit is refused with a TemplateError saying which limit.
"""

from __future__ import annotations

import contextvars
import re
import string
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.meta
from jinja2 import nodes, pass_eval_context
from jinja2.exceptions import SecurityError
from jinja2.filters import do_center, do_indent, do_join, do_replace
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

MAX_RENDER_CHARS = 200_000
MAX_VALUE_SIZE = 100_000  # characters of text plus items of lists in one value
MAX_RANGE = 10_000
MAX_STEPS = 100_000  # loop iterations and calls in one render
MAX_WIDTH = 10_000
# One "%" conversion: flags, then width and precision (digits or "*").
PERCENT_SPEC = re.compile(r"%(?:\([^()]{0,100}\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


class TemplateError(ValueError):
    """A prompt template that cannot be rendered, worded for the person who wrote it."""


class TemplateTooLong(TemplateError):
    """The output passed MAX_RENDER_CHARS: usually the text it was given, not the template."""


class _Budget:
    def __init__(self) -> None:
        self.steps = 0

    def step(self, count: int = 1) -> None:
        self.steps += count
        if self.steps > MAX_STEPS:
            raise SecurityError(f"more than {MAX_STEPS} loop iterations and calls in one render")


_budget: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("template_budget",
                                                                        default=None)


def _step(count: int = 1) -> None:
    budget = _budget.get()
    if budget is not None:
        budget.step(count)


def value_size(value: Any, limit: int = MAX_VALUE_SIZE) -> int:
    """Characters of text plus items of lists and dicts, counted until `limit` is passed
    (so measuring never costs more than the limit)."""
    total, stack = 0, [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, (list, tuple, dict)):
            total += len(item)
            if total <= limit:
                stack.extend(item.values() if isinstance(item, dict) else item)
        else:
            total += 1
    return total


def _refuse_big(size: int, what: str) -> None:
    if size > MAX_VALUE_SIZE:
        raise SecurityError(f"{what} would be longer than {MAX_VALUE_SIZE} in a prompt template")


def _width_check(width: Any, what: str) -> None:
    if isinstance(width, int) and not isinstance(width, bool) and abs(width) > MAX_WIDTH:
        raise SecurityError(f"{what} width {width} is over {MAX_WIDTH} in a prompt template")


def percent_format(text: str, arguments: Any) -> str:
    for found in PERCENT_SPEC.finditer(text):
        for number in found.groups():
            if number == "*":
                raise SecurityError("'*' widths are not allowed in a prompt template")
            if number:
                _width_check(int(number[:9]), "format")
    result = text % arguments
    _refuse_big(len(result), "formatted text")
    return result


def _format_spec_check(text: str) -> None:
    for _, _, spec, _ in string.Formatter().parse(text):
        if not spec:
            continue
        if "{" in spec:
            raise SecurityError("nested format fields are not allowed in a prompt template")
        for number in re.findall(r"\d+", spec):
            _width_check(int(number[:9]), "format")


# --- filters that would otherwise build unbounded values ----------------------------------


def _bounded_loop(iterable: Iterable[Any]) -> Iterator[Any]:
    for item in iterable:
        _step()
        yield item


def _bounded_concat(parts: list[Any]) -> str:
    texts = [str(part) for part in parts]
    _refuse_big(sum(len(t) for t in texts), "joined text")
    return "".join(texts)


def _format(value: Any, *args: Any, **kwargs: Any) -> str:
    return percent_format(str(value), kwargs or args)


@pass_eval_context
def _join(eval_ctx: Any, value: Any, d: str = "", attribute: Any = None) -> str:
    items = list(value) if not isinstance(value, (list, tuple)) else value
    _refuse_big(value_size(items) + len(str(d)) * len(items), "joined text")
    return do_join(eval_ctx, items, d, attribute)


@pass_eval_context
def _replace(eval_ctx: Any, s: str, old: str, new: str, count: int | None = None) -> str:
    text = str(s)
    hits = text.count(str(old)) if old else len(text) + 1
    if count is not None and count >= 0:
        hits = min(hits, count)
    _refuse_big(len(text) + hits * len(str(new)), "replaced text")
    return do_replace(eval_ctx, text, old, new, count)


def _center(value: str, width: int = 80) -> str:
    _width_check(width, "center")
    return do_center(value, width)


def _indent(s: str, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    pad = len(width) if isinstance(width, str) else width
    _refuse_big(len(str(s)) + pad * (str(s).count("\n") + 1), "indented text")
    return do_indent(s, width, first, blank)


def _sized(name: str, original: Any) -> Any:
    def checked(value: Any, size: int, *args: Any, **kwargs: Any) -> Any:
        _width_check(size, name)
        return original(value, size, *args, **kwargs)

    return checked


def _range(*args: int) -> range:
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise SecurityError(f"range of {len(numbers)} items is over {MAX_RANGE} in a prompt template")
    return numbers


class _Bound(NodeTransformer):
    """Every for-loop counts its iterations and every `~` checks its size."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = nodes.Filter(node.iter, "_bounded_loop", [], [], None, None,
                                 lineno=node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return nodes.Filter(nodes.List(node.nodes, lineno=node.lineno), "_bounded_concat", [],
                            [], None, None, lineno=node.lineno)


class PromptSandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.globals["range"] = _range
        self.filters.update(
            _bounded_loop=_bounded_loop, _bounded_concat=_bounded_concat, format=_format,
            join=_join, replace=_replace, center=_center, indent=_indent,
            batch=_sized("batch", self.filters["batch"]),
            slice=_sized("slice", self.filters["slice"]),
        )

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        return _Bound().visit(super()._parse(source, name, filename))

    def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
        # The stock sandbox renders unsafe attributes as empty text; we want the author to know.
        raise SecurityError(
            f"access to attribute {attribute!r} of {type(obj).__name__!r} object is unsafe"
        )

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        _step()
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Any:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        text = value.__self__

        def checked(*args: Any, **kwargs: Any) -> str:
            _format_spec_check(text)
            result = wrapped(*args, **kwargs)
            _refuse_big(len(result), "formatted text")
            return result

        return checked

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and _number_is_big(left) and _number_is_big(right, limit=64):
            raise SecurityError("power too large for a prompt template")
        if operator == "*":
            _repeat_check(left, right)
        if operator == "+" and not _numbers(left, right):
            _refuse_big(value_size(left) + value_size(right), "sum")
        if operator == "%" and isinstance(left, str):
            return percent_format(left, right)
        return super().call_binop(context, operator, left, right)


def _numbers(*values: Any) -> bool:
    return all(isinstance(v, (int, float)) for v in values)


def _number_is_big(value: Any, limit: int = 1_000_000) -> bool:
    return isinstance(value, (int, float)) and abs(value) > limit


def _repeat_check(left: Any, right: Any) -> None:
    for sequence, count in ((left, right), (right, left)):
        if isinstance(sequence, (str, list, tuple)) and isinstance(count, int):
            _refuse_big(value_size(sequence) * max(count, 0), "repetition")


_ENVIRONMENT = PromptSandbox(undefined=jinja2.ChainableUndefined, autoescape=False)


@lru_cache(maxsize=1024)
def _template_compile(source: str) -> jinja2.Template:
    return _ENVIRONMENT.from_string(source)


def render_template(source: str, variables: dict[str, Any]) -> str:
    """Render `source` in the sandbox: undefined names render empty, no loader, no side
    effects, bounded output and work."""
    token = _budget.set(_Budget())
    try:
        chunks, size = [], 0
        for chunk in _template_compile(source).generate(variables):
            size += len(chunk)
            if size > MAX_RENDER_CHARS:
                raise TemplateTooLong(
                    f"template output longer than {MAX_RENDER_CHARS} characters")
            chunks.append(chunk)
        return "".join(chunks)
    except TemplateError:
        raise
    except SecurityError as error:
        raise TemplateError(f"template refused by the sandbox: {error}") from error
    except RecursionError as error:
        raise TemplateError("template refused: macros or loops nest too deeply") from error
    except jinja2.TemplateSyntaxError as error:
        raise TemplateError(
            f"template syntax error on line {error.lineno}: {error.message}"
        ) from error
    except Exception as error:
        raise TemplateError(f"template failed: {type(error).__name__}: {error}") from error
    finally:
        _budget.reset(token)


@lru_cache(maxsize=256)
def template_reads_only(source: str, names: frozenset[str]) -> bool:
    """`source` reads no variable but `names` and draws nothing at random, so what it renders
    depends on their values alone (and may be remembered by them). False for a template that
    does not parse."""
    try:
        parsed = _ENVIRONMENT.parse(source)
    except jinja2.TemplateSyntaxError:
        return False
    return (jinja2.meta.find_undeclared_variables(parsed) <= names
            and not any(node.name == "random" for node in parsed.find_all(nodes.Filter))
            and not any(node.name == "lipsum" for node in parsed.find_all(nodes.Name)))
