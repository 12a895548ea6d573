"""The keyword (BM25) side of recall: scores (`bm25`), the words matched
(`tokens`), the words a statement says instead of the question's (`said_instead`)
and the marks of facts told with none of them (`stated`), the files every
worker shares (`store`), and keeping them up to
date (`sync` when a chat opens, `live` after each turn, `docs` for lines
Chroma does not hold yet)."""
