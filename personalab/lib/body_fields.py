"""Fields of a request body that an endpoint would not write.

A client may send back what GET answered (ids, owner, computed values, keys an author added to
the file by hand), but a field the endpoint would drop or cannot change is refused, so nothing
sent is lost without a word.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from personalab.lib.errors import Invalid


UNKNOWN_FIELD = "unknown field: nothing would store it"


class ClosedBody(BaseModel):
    """A request body with nothing besides its fields: another key is a 400 `unknown_field`
    (pydantic's extra_forbidden, worded by personalab/api.py)."""

    model_config = ConfigDict(extra="forbid")


class ExtraKeysKept(BaseModel):
    """A shape that keeps the keys it does not list: a request body's reach the route (for
    body_fields_check), a file's reach the answer. pydantic's model, not ninja's Schema:
    Schema reads attributes, which loses the extra keys."""

    model_config = ConfigDict(extra="allow")

    def listed(self) -> dict[str, Any]:
        """The listed fields that were sent."""
        return self.model_dump(exclude_unset=True, include=set(type(self).model_fields))


def _as_json(value: Any) -> Any:
    # What GET shows went through JSON; compare the sent value with that, not with Python types.
    return json.loads(json.dumps(value, default=str))


def body_fields_check(sent: Mapping[str, Any], *, writable: Collection[str],
                      shown: Mapping[str, Any]) -> None:
    """Refuses (400) every field of `sent` outside `writable` unless `shown` (the item as GET
    answers it; empty on create) has the same value: `unknown_field` when GET has no such
    field, else `read_only_field`. `fields` names each one."""
    others = [name for name in sent if name not in writable]
    if not others:
        return
    shown_json = _as_json({name: shown[name] for name in others if name in shown})
    unknown = {name: UNKNOWN_FIELD for name in others if name not in shown_json}
    changed = {name: "read-only: send it as GET shows it, or leave it out"
               for name in others if name in shown_json and sent[name] != shown_json[name]}
    if unknown:
        raise Invalid(f"unknown field(s): {', '.join(unknown)}; nothing was saved",
                      code="unknown_field", fields={**unknown, **changed})
    if changed:
        raise Invalid(f"read-only field(s) changed: {', '.join(changed)}; nothing was saved",
                      code="read_only_field", fields=changed)
