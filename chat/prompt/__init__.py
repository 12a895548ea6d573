"""The prompt sent to the model, built in stages with no side effects: `inputs` (what a
prompt is built from, the plan), `templates` (master templates + overrides), `variables`,
`sections` (render, budgets, floating blocks, example dialogues), `conversation` (the history
window), `limits` (refusal and warnings), `assemble` (`prompt_build`, which runs them all).
The building blocks beside them: card fields, examples, alternation, tally, window, world info,
message_cut (the last reply cut to fit)."""
