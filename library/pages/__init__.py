"""The authors' pages: the library and the character and background editors
(`editors`, `editor_sections`, `regex_script_form`), the lorebook editor (`lorebook_editor`),
what they share about the item shown (`item_access`, `editor_refusals`), the personas page
(`personas`) and the account's regex scripts (`regex_scripts`)."""
