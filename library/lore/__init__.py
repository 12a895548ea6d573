"""Lorebooks (world info): what a book holds and how it is checked (`lorebook`,
`percent`, `regex_keys`, `defaults`), SillyTavern's files (`st_files`), its actions
(`services`), and activation with SillyTavern's semantics: `activation` (the scan),
`keys`, `budget`, `vectors` and `vector_store` for vectorized entries, and "Test this
text" in the reader's words (`text_test_words`)."""
