"""The HTML pages and htmx partials: the instance list, chat page and trace page (`chat`; the
texts its script shows: `chat_strings`), the drawer's cards (`members`, `generation`,
`regex_allow`, `variables`), one message (`message`), the page without scripts: a message's
changes (`message_forms`) and the box's Send, ↻ and → (`send`), the history manager and memory pages
(`history`, `history_urls`), importing a chat (`imports`) and the settings page
(`settings_page`, `llm_form`). They change nothing themselves that the REST API (`chat/api/`)
does not."""
