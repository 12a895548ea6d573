"""The Chroma side of recall: the index (`index`, `where` for its filters, `id_reads` for
its reads by id), its sync
with the files (`sync`, `turn_docs`), a large import embedded in the background
(`fill`, `fill_guard`)."""
