"""Instance and session actions, one module per job: `instances` (start, find), `index`
(the database rows rebuilt from the files), `sessions` (read, summary, archive), `traces`,
`session_import` / `session_export` (other apps' chats, going on as a group),
`instance_settings`, `generation`, `members` (group conversations), `settings_reset`.
Files first, then the index. The public actions are re-exported here, so
`from chat import services` and `from chat.services import instance_create` keep working."""

from __future__ import annotations

from chat.services.errors import InstanceUpdateError, NotFound
from chat.services.generation import (
    generation_defaults_read,
    generation_defaults_update,
    generation_for_instance,
)
from chat.services.index import instance_index, reindex_all, trace_index
from chat.services.instance_settings import (
    MAX_INSTANCE_NAME,
    MAX_PERSONA_NAME,
    UNSET,
    instance_background_switch,
    instance_play_as,
    instance_update,
)
from chat.services.instances import (
    INITIAL_PLOT_STATE,
    MAX_MEMBERS,
    greeting_lines,
    instance_create,
    instance_for_user,
    instances_visible_to,
)
from chat.services.members import (
    instance_member_add,
    instance_member_change,
    instance_member_remove,
)
from chat.services.session_export import session_export, session_regroup
from chat.services.session_import import session_import
from chat.services.sessions import (
    session_archive_and_restart,
    session_live_check,
    session_read_repaired,
    session_summary,
)
from chat.services.settings_reset import SETTINGS_SECTIONS, settings_section_reset
from chat.services.traces import SECTION_FIGURES, TRACE_FIGURES, trace_rebuild, trace_sections

__all__ = [
    "INITIAL_PLOT_STATE",
    "MAX_INSTANCE_NAME",
    "MAX_MEMBERS",
    "MAX_PERSONA_NAME",
    "SECTION_FIGURES",
    "SETTINGS_SECTIONS",
    "TRACE_FIGURES",
    "UNSET",
    "InstanceUpdateError",
    "NotFound",
    "generation_defaults_read",
    "generation_defaults_update",
    "generation_for_instance",
    "greeting_lines",
    "instance_background_switch",
    "instance_create",
    "instance_for_user",
    "instance_index",
    "instance_member_add",
    "instance_member_change",
    "instance_member_remove",
    "instance_play_as",
    "instance_update",
    "instances_visible_to",
    "reindex_all",
    "session_archive_and_restart",
    "session_export",
    "session_import",
    "session_live_check",
    "session_read_repaired",
    "session_regroup",
    "session_summary",
    "settings_section_reset",
    "trace_index",
    "trace_rebuild",
    "trace_sections",
]
