"""Regex scripts as SillyTavern's regex extension keeps and runs them (`scripts`),
an account's own scripts (`services`), and a regex that cannot be used said in
its author's words (`words`)."""
