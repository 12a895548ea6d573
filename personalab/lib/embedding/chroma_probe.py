"""The child process of personalab/lib/embedding/chroma_check.py: `python -m
personalab.lib.embedding.chroma_probe <chroma folder> probe|delete <collection>...`.

Prints "ok (store)" once the store is open, then per collection "ok <name>" or
"failed <name> <error>"; a collection whose search kills the process prints nothing, and the
parent names it by what is missing. Nothing else is written to stdout.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from personalab.lib.embedding.chroma import client_create
from personalab.lib.embedding.chroma_check import OPENED


def collection_probe(client, name: str) -> None:
    """One search of the collection's vector segment (which loads it), when it has vectors."""
    collection = client.get_collection(name)
    dimension = collection._model.dimension  # noqa: SLF001 — the only place Chroma keeps it
    if dimension and collection.count():
        collection.query(query_embeddings=[[1.0 / dimension] * dimension], n_results=1,
                         include=[])


def main(argv: list[str]) -> int:
    folder, action, names = Path(argv[0]), argv[1], argv[2:]
    warnings.simplefilter("ignore")  # a collection opened without its embedding function says so
    client = client_create(path=folder)
    print("ok", OPENED, flush=True)
    for name in names:
        try:
            if action == "delete":
                client.delete_collection(name)
            else:
                collection_probe(client, name)
        except Exception as exc:  # noqa: BLE001 — the parent reads which collection and why
            if action == "delete" and "does not exist" in str(exc):
                print("ok", name, flush=True)
                continue
            print("failed", name, " ".join(str(exc).split())[:300], flush=True)
            continue
        print("ok", name, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
