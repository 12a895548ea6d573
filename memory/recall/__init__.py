"""Recall for a turn, the way people talk: the search (`rag`), what a question asks
(`queries`: its words and parts; `focus`: when and whom), which hits are worth the
model's attention (`floor`, `feedback`), lines read with their neighbours
(`passages`), recall on every turn (`turn`), and on lines an import has not
embedded yet (`unembedded`)."""
