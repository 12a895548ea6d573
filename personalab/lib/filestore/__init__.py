"""The file store (personalab/lib/filestore/): the one way every app reads and writes the data
folder. One job per module:

    store.py            FileStore: paths, config, characters, backgrounds, lorebooks, personas,
                        instances, traces, memory ledgers; the instance lock
    sessions.py         FileStore's session files: create, append, tail change, archive, repair
    writer.py           the streaming assistant line (AssistantLineWriter, parse_partial_line)
    session_read.py     SessionRead and reading a session file whole or its newest lines
    session_stretch.py  reading part of a session through its line index
    cache.py            the session cache (parse only what was appended)
    jsonl.py            JSONL lines: append whole, parse with problems reported
    jsonfile.py         whole JSON files: atomic write, capped read, keep the previous version
    defaults.py         what config.json and modules/*.json hold when missing
    ../store_errors.py  the store's errors (apart, so locks.py raises InstanceBusy without the store)

The names below are re-exported so `from personalab.lib.filestore import FileStore` keeps
working; new code may import from the module that holds the thing.
"""

from __future__ import annotations

from personalab.lib.filestore.cache import SESSION_CACHE, SessionCache
from personalab.lib.filestore.defaults import DEFAULT_CONFIG, DEFAULT_MODULES, deep_merge
from personalab.lib.filestore.jsonfile import (
                                               MAX_JSON_FILE_BYTES,
                                               json_keys_per_line,
                                               keep_previous,
                                               read_json,
                                               utc_now,
                                               write_json_atomic,
                                               write_json_keeping_previous,
                                               write_text_atomic,
)
from personalab.lib.filestore.jsonl import (
                                               LineProblem,
                                               LinesSince,
                                               jsonl_lines_since,
                                               line_hash,
                                               read_jsonl_records,
)
from personalab.lib.filestore.session_read import (
                                               LinesBefore,
                                               SessionRead,
                                               read_session_bytes,
                                               read_session_file,
                                               read_session_tail,
)
from personalab.lib.filestore.session_stretch import (
                                               read_session_picked,
                                               read_session_recent,
                                               read_session_stretch,
)
from personalab.lib.filestore.sessions import TailChange
from personalab.lib.filestore.store import FileStore, InstanceLock, locked
from personalab.lib.filestore.writer import (
                                               STREAM_SEGMENT_KEYS,
                                               STREAMING_PREFIX_KEY,
                                               AssistantLineWriter,
                                               parse_partial_line,
)
from personalab.lib.store_errors import CorruptFile, IdTaken, InstanceBusy, MissingFile, StoreError

__all__ = [
                                               "DEFAULT_CONFIG",
                                               "DEFAULT_MODULES",
                                               "MAX_JSON_FILE_BYTES",
                                               "SESSION_CACHE",
                                               "STREAMING_PREFIX_KEY",
                                               "STREAM_SEGMENT_KEYS",
                                               "AssistantLineWriter",
                                               "CorruptFile",
                                               "FileStore",
                                               "IdTaken",
                                               "InstanceBusy",
                                               "InstanceLock",
                                               "LineProblem",
                                               "LinesBefore",
                                               "LinesSince",
                                               "MissingFile",
                                               "SessionCache",
                                               "SessionRead",
                                               "StoreError",
                                               "TailChange",
                                               "deep_merge",
                                               "json_keys_per_line",
                                               "jsonl_lines_since",
                                               "keep_previous",
                                               "line_hash",
                                               "locked",
                                               "parse_partial_line",
                                               "read_json",
                                               "read_jsonl_records",
                                               "read_session_bytes",
                                               "read_session_file",
                                               "read_session_picked",
                                               "read_session_recent",
                                               "read_session_stretch",
                                               "read_session_tail",
                                               "utc_now",
                                               "write_json_atomic",
                                               "write_json_keeping_previous",
                                               "write_text_atomic",
]
