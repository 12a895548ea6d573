"""Other apps' chat files: reading the formats (`chat_formats`, `st_note`),
writing them (`st_chat_export`, its members' avatar files `st_avatars`, `chat_markdown`),
checking an import before it becomes a chat (`import_check`, `import_warnings`,
`refusal_words`), a new chat from a file (`import_new`), groups that go on
(`imported_groups`), and exports bounded per account and run apart (`exports`,
`export_process`)."""
