"""What a character carries across sessions: its evolved persona
(`evolved_persona`), biography paragraphs (`biography`), pinned "never forget"
prompts (`pinned`)."""
