"""The prompt inspector's words for a turn's trace, in the reader's language: names
(`names`), warnings and what was left out (`notes`), and why (`reasons`)."""
