"""The keyword (BM25) side of recall: scores (`bm25`), the words matched
(`tokens`), the files every worker shares (`store`), and keeping them up to
date (`sync` when a chat opens, `live` after each turn, `docs` for lines
Chroma does not hold yet)."""
