"""One turn, from the player's line to a finished reply in the session file (`turn`),
what it reads before the model is called (`context`: files, `memory` for recall and the
director, `lore`, `macros`, `variables`), the window it fits (`window`, `model_context`, `overflow`,
`reply_limit`), a finished reply's clean-up (`reply_clean`), regenerate and continue (`redo`),
the recap a turn may start (`recap_roll`), how many replies one account may have written at once
(`account_turns`; over every worker in Redis: `account_turns_shared`), and the light entries
beside a turn: `aside`, `impersonate`."""
