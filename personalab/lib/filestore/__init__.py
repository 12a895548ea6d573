"""The file store (personalab/lib/filestore/): the one way every app reads and writes the data
folder. One job per module:

    store.py            FileStore: paths, config, characters, backgrounds, lorebooks, personas,
                        instances, traces, memory ledgers; the instance lock
    sessions.py         FileStore's session files: create, append, tail change, archive, repair
    writer.py           the streaming assistant line (AssistantLineWriter, parse_partial_line)
    session_read.py     SessionRead and reading a session file whole or its newest lines
    session_stretch.py  reading part of a session through its line index
    lines_before.py     what a prompt needs of the lines before a turn's stretch, kept per turn
    cache.py            the session cache (parse only what was appended)
    jsonl.py            JSONL lines: append whole, parse with problems reported
    jsonfile.py         whole JSON files: atomic write, capped read, keep the previous version
    defaults.py         what config.json and modules/*.json hold when missing
    account_modules.py  an account's record of a module, a file per account (modules/{m}/accounts/)
    trash.py            a deleted library item's kept files: listed, brought back
    outline_pending.py  a chat's story step still to follow an outline edit (the lock's hook)
    ../store_errors.py  the store's errors (apart, so locks.py raises InstanceBusy without the store)

Nothing is re-exported here: import a name from the module that holds it
(`from personalab.lib.filestore.store import FileStore`).
"""
