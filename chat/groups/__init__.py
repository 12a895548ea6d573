"""Conversations with several characters: the members (`members`), who speaks next
(`speakers`), a round of replies (`round`), what each speaker's prompt shows of the
others (`prompt`, `scene`, `cards` for SillyTavern's join modes), and the ledger of
who took part in which conversation (`conversations`)."""
