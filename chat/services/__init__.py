"""Instance and session actions, one module per job: `instances` (start, find), `index`
(the database rows rebuilt from the files), `sessions` (read, summary, archive), `traces`,
`session_import` / `session_export` (other apps' chats, going on as a group),
`instance_settings`, `generation`, `members` (group conversations), `settings_reset`,
`prompt_manager`, `llm_text_settings`, `quotas` (chats per account, sessions per chat); their errors in `errors`. Files first, then the index.
Import an action from the module that holds it (`from chat.services.instances import
instance_create`): nothing is re-exported here, so an import tells where the code is."""
