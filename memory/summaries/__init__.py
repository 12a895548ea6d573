"""What the model writes about the story: summarize a session (`summarize`,
`journal` for a killed one, `transcript_parts` for a long one, `parts_kept` for a
long one that failed part-way), rolling recaps
(`recaps`, `recap_copies`), and marks on what was written from lines edited since
(`source_changes`)."""
