"""The REST refusals written in fixed English below the API, each as a msgid: its figures
(an id, a count, a reason) as %(name)s where the f-string puts a value. personalab/error_words.py
reads a message back through these (the English as written, a figure where a value stands) and
says it in the request's language; a message not listed goes as it came. Keep each sentence word
for word as its raise site writes it (tests/api/test_error_sentences.py checks a sample)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

SENTENCES = (
    # pydantic's own words for a body or query that does not fit (a 400's fields)
    gettext_noop("Field required"),
    gettext_noop("Input should be a valid integer"),
    gettext_noop("Input should be a valid integer, unable to parse string as an integer"),
    gettext_noop("Input should be a valid integer, got a number with a fractional part"),
    gettext_noop("Input should be a valid number"),
    gettext_noop("Input should be a valid number, unable to parse string as a number"),
    gettext_noop("Input should be a finite number"),
    gettext_noop("Input should be a valid boolean"),
    gettext_noop("Input should be a valid boolean, unable to interpret input"),
    gettext_noop("Input should be a valid string"),
    gettext_noop("Input should be a valid list"),
    gettext_noop("Input should be a valid dictionary"),
    gettext_noop("Input should be a valid dictionary or object to extract fields from"),
    gettext_noop("Input should be %(expected)s"),
    gettext_noop("Input should be greater than %(number)s"),
    gettext_noop("Input should be greater than or equal to %(number)s"),
    gettext_noop("Input should be less than %(number)s"),
    gettext_noop("Input should be less than or equal to %(number)s"),
    gettext_noop("String should have at least %(count)s character"),
    gettext_noop("String should have at least %(count)s characters"),
    gettext_noop("String should have at most %(count)s character"),
    gettext_noop("String should have at most %(count)s characters"),
    gettext_noop("List should have at least %(count)s item after validation, not %(length)s"),
    gettext_noop("List should have at least %(count)s items after validation, not %(length)s"),
    gettext_noop("List should have at most %(count)s item after validation, not %(length)s"),
    gettext_noop("List should have at most %(count)s items after validation, not %(length)s"),
    gettext_noop("String should match pattern '%(pattern)s'"),
    gettext_noop("Value error, %(reason)s"),
    gettext_noop("unknown field: nothing would store it"),
    gettext_noop("not a known time zone"),
    gettext_noop("invalid request"),
    # the API's own refusals and personalab/lib's
    gettext_noop("log in or send 'Authorization: Bearer <token>'"),
    gettext_noop("invalid or revoked API token"),
    gettext_noop("CSRF check failed: send the X-CSRFToken header"),
    gettext_noop("use %(allowed)s on this URL"),
    gettext_noop("use another method on this URL"),
    gettext_noop("not found"),
    gettext_noop("the data folder cannot be written: %(detail)s"),
    gettext_noop("unknown field(s): %(names)s; nothing was saved"),
    gettext_noop("read-only field(s) changed: %(names)s; nothing was saved"),
    gettext_noop("session %(id)s already exists in %(instance)s"),
    gettext_noop("no free %(kind)s id after %(count)s tries"),
    gettext_noop("invalid %(kind)s %(id)s: use 1-64 characters of a-z, 0-9, '_' and '-', not "
                 "starting with '-'"),
    gettext_noop("a member change names an unexpected file: '%(path)s'"),
    gettext_noop("'%(value)s' is neither a character id nor player:{username}"),
    gettext_noop("participant %(id)s names an unexpected state file"),
    gettext_noop("%(kind)s '%(id)s' not found"),
    gettext_noop("%(id)s is not a member of this conversation"),
    gettext_noop("instance %(id)s already exists"),
    # the data folder, its locks and the sampling settings (personalab/lib)
    gettext_noop("the lock on instance %(id)s was lost (its lease ran out); nothing more is "
                 "written; send again"),
    gettext_noop("instance %(id)s cannot be locked: the lock service (Redis) is unreachable "
                 "(%(detail)s); try again in a moment"),
    gettext_noop("%(path)s cannot be read: %(reason)s"),
    gettext_noop("not valid JSON (%(detail)s)"),
    gettext_noop("file is larger than 50 MB"),
    gettext_noop("request body is not valid JSON: %(detail)s"),
    gettext_noop("request body nests deeper than %(count)s levels"),
    gettext_noop("request body must be a JSON object"),
    gettext_noop("must be a JSON object (a SillyTavern preset)"),
    gettext_noop("no sampling settings found (temperature, top_p, openai_max_tokens, ...)"),
    gettext_noop("unknown setting; known: %(names)s"),
    gettext_noop("this chat's characters are not a group of characters in your library"),
    gettext_noop("this chat's characters are not a group of characters in your library "
                 "(missing: %(names)s)"),
    # prompt blocks, instruct and context templates (personalab/lib)
    gettext_noop("A preset must be a JSON object."),
    gettext_noop("Utility prompts must be an object."),
    gettext_noop("A utility prompt is not valid."),
    gettext_noop("A prompt block must be an object."),
    gettext_noop("A prompt block is not valid."),
    gettext_noop("Prompt blocks must be a list."),
    gettext_noop("At most %(count)s prompt blocks."),
    gettext_noop("Only one block may be the %(place)s prompt."),
    gettext_noop("unknown instruct template '%(name)s': one of %(names)s, or a SillyTavern "
                 "instruct preset"),
    gettext_noop("an instruct template is a JSON object with SillyTavern's fields "
                 "(input_sequence, output_sequence, ...)"),
    gettext_noop("this is not an instruct template: it has neither input_sequence nor "
                 "output_sequence"),
    gettext_noop("%(field)s must be text"),
    gettext_noop("%(field)s is longer than %(count)s characters"),
    gettext_noop("%(field)s must be true or false"),
    gettext_noop("%(field)s is required"),
    gettext_noop("%(field)s must be a whole number from 0 to %(count)s"),
    gettext_noop("names_behavior must be one of %(names)s"),
    gettext_noop("unknown context template '%(name)s': one of %(names)s, or a SillyTavern "
                 "context template"),
    gettext_noop("a context template is a JSON object with SillyTavern's fields (story_string, "
                 "example_separator, chat_start)"),
    gettext_noop("story_string: only {{#if name}} and {{#unless name}} blocks are understood "
                 "here (no {{#each}}, helpers or other blocks)"),
    gettext_noop("story_string: {{#%(block)s %(name)s}} is never closed"),
    gettext_noop("story_string: %(tag)s names no value it knows (one of %(names)s)"),
    gettext_noop("story_string: blocks nested more than %(count)s deep"),
    gettext_noop("story_string: {{else}} outside an {{#if}} or {{#unless}} block"),
    gettext_noop("story_string: %(tag)s closes no open {{#%(block)s}} block"),
    gettext_noop("the story string puts its values in too many times (the prompt would be far "
                 "longer than all of them together)"),
    gettext_noop("instruct template: %(reason)s"),
    # the model's connection (personalab/lib/llm*.py)
    gettext_noop("LLM request failed: %(kind)s: %(detail)s"),
    gettext_noop("LLM reported an error: %(detail)s"),
    gettext_noop("LLM stream reported an error: %(detail)s"),
    gettext_noop("LLM timed out after %(seconds)ss"),
    gettext_noop("the connection to the LLM at %(address)s broke: %(detail)s"),
    gettext_noop("cannot connect to the LLM at %(address)s"),
    gettext_noop("LLM sent an unreadable response: %(detail)s"),
    gettext_noop("the LLM compressed its stream, though asked not to"),
    gettext_noop("llama-cpp-python is not installed: pip install '.[gguf]' (or unset "
                 "PERSONALAB_GGUF to use the offline demo)"),
    gettext_noop("GGUF model not found: %(path)s"),
    gettext_noop("local model failed: %(detail)s"),
    gettext_noop("The server at %(address)s answered but lists no models."),
    gettext_noop("The server at %(address)s did not answer within %(seconds)s seconds."),
    gettext_noop("The server at %(address)s: %(detail)s."),
    gettext_noop("Could not connect to %(address)s: check the address and that the server is "
                 "running."),
    gettext_noop("The server at %(address)s answered, but not with a model list: %(detail)s."),
    gettext_noop("only staff accounts may change the connection"),
    # chat/: the chat page's calls (history, turns, members, presets)
    gettext_noop("name at least one participant"),
    gettext_noop("name the character this chat is with"),
    gettext_noop("name a character (character_id or character_ids)"),
    gettext_noop("turn must be 1 or more"),
    gettext_noop("fields must be 'sections', 'info' or left out"),
    gettext_noop("session '%(id)s' exists in several instances; add ?instance_id=…"),
    gettext_noop("the text is empty; delete the message instead"),
    gettext_noop("the text is too long (%(length)s > %(count)s characters)"),
    gettext_noop("session '%(id)s' not found (archived sessions are read-only)"),
    gettext_noop("this session file has %(count)s unreadable line(s); repair the file first "
                 "(%(detail)s)"),
    gettext_noop("that message is no longer in the session"),
    gettext_noop("that message is no longer in the session; reload the page"),
    gettext_noop("the session changed since this page was loaded; reload the page"),
    gettext_noop("only messages and summaries can be changed"),
    gettext_noop("give the new text or hidden (or both)"),
    gettext_noop("hidden must be true or false"),
    gettext_noop("the backup for this undo is missing"),
    gettext_noop("only messages and narrator notes can be hidden, not summaries"),
    gettext_noop("there is nothing to undo (already undone or unknown)"),
    gettext_noop("the undo window has passed (%(seconds)s s); the previous version is kept in "
                 "sessions/history/"),
    gettext_noop("the session changed after this action, so it can no longer be undone; the "
                 "previous version is kept in sessions/history/"),
    gettext_noop("the session file no longer matches this undo"),
    gettext_noop("only the latest reply can be flipped; reload the page"),
    gettext_noop("there is no such alternative for this reply"),
    gettext_noop("the export stopped before it ended; try again"),
    gettext_noop("'%(id)s' is not a character of this story"),
    gettext_noop("%(file)s of %(instance)s cannot be read: %(detail)s"),
    gettext_noop("the suggestion cannot start: %(reason)s"),
    gettext_noop("the turn cannot start: %(reason)s"),
    gettext_noop("message is empty"),
    gettext_noop("message is too long (%(length)s > %(count)s characters)"),
    gettext_noop("name at least one character"),
    gettext_noop("at most %(count)s characters in one chat"),
    gettext_noop("reply_order must be one of %(names)s"),
    gettext_noop("a context template is at most %(count)s characters; this is not one"),
    gettext_noop("an instruct preset is at most %(count)s characters; this is not one"),
    gettext_noop("not JSON: %(detail)s"),
    gettext_noop("not a context template: nested too deep"),
    gettext_noop("not an instruct preset: nested too deep"),
    gettext_noop("must be chat, text or empty"),
    gettext_noop("no instruct preset is imported: send `instruct` (a SillyTavern instruct "
                 "preset) with it"),
    gettext_noop("no context template is imported: send `context` (a SillyTavern context "
                 "template) with it"),
    gettext_noop("name a character"),
    gettext_noop("text or hidden is required"),
    gettext_noop("only 'sections' or 'info'"),
    gettext_noop("a conversation needs a character: the last one cannot leave"),
    gettext_noop("extensions.regex_scripts must be a list of at most %(count)s regex scripts"),
    # director/: settings and the story's outline
    gettext_noop("only staff accounts may change the configuration"),
    gettext_noop("some settings are invalid; nothing was saved"),
    gettext_noop("this chat's background has no outline"),
    gettext_noop("must be a point of the outline, 1 to %(count)s"),
    gettext_noop("only the chat's owner may hold or release its story"),
    # library/: characters, backgrounds, lorebooks, personas, cards
    gettext_noop("seen must be the text GET showed"),
    gettext_noop("regex_scripts_allowed must be true or false"),
    gettext_noop("spec must be v2 or v3"),
    gettext_noop("story_outline must be a list of points"),
    gettext_noop("no outline point %(count)s"),
    gettext_noop("unknown outline action '%(name)s'"),
    gettext_noop("card file is larger than 10 MB"),
    gettext_noop("CHARX files cannot be written: %(detail)s"),
    gettext_noop("the card cannot be written: %(detail)s"),
    gettext_noop("PNG has no 'chara' or 'ccv3' text chunk (it is a picture, not a card)"),
    gettext_noop("this file is a RisuAI chat, not a character card; import it on the chat page"),
    gettext_noop("unsupported card spec '%(name)s' (PersonaLab reads chara_card_v2, "
                 "chara_card_v3 and V1 cards)"),
    gettext_noop("PNG '%(name)s' text chunk is not valid base64"),
    gettext_noop("this file is %(what)s, not a character card"),
    gettext_noop("the card's character_book is invalid: %(reason)s"),
    gettext_noop("depth_prompt must be an object {prompt, depth, role}"),
    gettext_noop("talkativeness must be a number from 0 to 1"),
    gettext_noop("depth_prompt.prompt must be text"),
    gettext_noop("depth_prompt.prompt is longer than %(count)s characters"),
    gettext_noop("depth_prompt.depth (Character's Note depth) must be %(reason)s"),
    gettext_noop("depth_prompt.role (Character's Note role) must be system, user or assistant"),
    gettext_noop("PNG is truncated: chunk header at byte %(count)s is cut off"),
    gettext_noop("PNG is truncated: chunk '%(name)s' at byte %(count)s runs past the end"),
    gettext_noop("PNG is damaged: bad checksum in chunk '%(name)s' at byte %(count)s"),
    gettext_noop("card must be an object"),
    gettext_noop("character %(id)s cannot be played in this chat: its author made it private "
                 "(or deleted it); nothing of the chat is lost"),
    gettext_noop("%(kind)s %(id)s already exists; choose another id or edit the existing one"),
    gettext_noop("persona %(id)s already exists"),
    gettext_noop("tags must be a list of text"),
    gettext_noop("tags: %(reason)s"),
    gettext_noop("alternate_greetings must be a list of text"),
    gettext_noop("lorebook_ids must be a list of lorebook ids"),
    gettext_noop("visibility must be private or shared"),
    gettext_noop("lorebook_ids: no lorebook '%(id)s'"),
    gettext_noop("%(field)s must be a list of regex scripts"),
    gettext_noop("%(field)s: at most %(count)s scripts"),
    gettext_noop("regex_scripts: at most %(limit)s characters of scripts are kept for one "
                 "account; these come to %(length)s"),
    gettext_noop("at most %(limit)s characters of prompts and scripts are kept as an account's "
                 "default; these come to %(length)s"),
    gettext_noop("the %(kind)s was not changed: a chat of another account that uses it could not "
                 "keep its copy (%(detail)s); nothing was changed, try again later"),
    gettext_noop("the %(kind)s was saved elsewhere since this editor opened it"),
    gettext_noop("this lorebook has %(count)s entries; at most %(limit)s are kept in one book: "
                 "split it into several books"),
    gettext_noop("a lorebook must be a JSON object"),
    gettext_noop("invalid lorebook: %(reason)s"),
    gettext_noop("format must be st or card"),
    gettext_noop("the lorebook was saved elsewhere since this editor opened it"),
    gettext_noop("name is longer than %(count)s characters"),
    gettext_noop("Your name in the story is longer than %(count)s characters"),
    gettext_noop("not a SillyTavern world-info file, a card character_book or an Agnai, RisuAI "
                 "or NovelAI lorebook (no \"entries\" object or list)"),
    gettext_noop("description_depth must be a whole number from 0 to %(count)s"),
    gettext_noop("%(field)s must be one of %(names)s"),
    gettext_noop("persona “%(name)s”: %(reason)s"),
    gettext_noop("lorebook_id must be a lorebook id"),
    gettext_noop("persona %(name)s belongs to another account"),
    gettext_noop("lorebook_id: no lorebook '%(id)s'"),
    gettext_noop("%(kind)s %(name)s belongs to %(owner)s; only its owner or staff may change or "
                 "delete it. Use \"use as my own\" to make your own copy."),
    # memory/: a character's memory in a chat
    gettext_noop("there is no evolved-persona version %(count)s"),
    gettext_noop("text is longer than %(count)s characters, the most a pinned prompt may be"),
    gettext_noop("there is no item '%(id)s'"),
    # library/: SillyTavern's world-info settings
    gettext_noop("only staff accounts may change the site's world-info settings"),
    gettext_noop("this is not a SillyTavern settings.json: it has no “world_info_settings”"),
    gettext_noop("this settings.json selects no global world-info books "
                 "(world_info.globalSelect is empty)"),
    gettext_noop("this settings.json selects more than %(count)s global world-info books"),
    gettext_noop("world_info must hold the selected books' names (globalSelect)"),
    # library/lore/st_tags.py: SillyTavern's tags, to name a book's tag ids
    gettext_noop("this settings file has no \"tags\" list (SillyTavern's settings.json keeps "
                 "its tags there)"),
    gettext_noop("no tags list"),
    gettext_noop("this settings file holds more than %(count)s tags"),
    gettext_noop("at most %(count)s tags"),
    gettext_noop("naming these tags would add more than %(count)s characters to the book (its "
                 "filters name the same long tag names many times)"),
    gettext_noop("at most %(count)s characters of tag names in a book"),
    # library/lore/st_tag_list.py: the tag names an account kept
    gettext_noop("your kept SillyTavern tag names cannot be read (the file is damaged): "
                 "forget them, then give your settings.json again"),
    gettext_noop("no SillyTavern tag name is kept for %(id)s"),
    gettext_noop("not kept"),
    # personalab/lib/errors.py LIMIT_SENTENCES: an account or a chat at its limit
    gettext_noop("you have %(limit)s personas, the most one account may have (%(setting)s): "
                 "delete one to make another"),
    gettext_noop("you have %(limit)s characters, the most one account may have (%(setting)s): "
                 "delete one to make another"),
    gettext_noop("you have %(limit)s backgrounds, the most one account may have (%(setting)s): "
                 "delete one to make another"),
    gettext_noop("you have %(limit)s lorebooks, the most one account may have (%(setting)s): "
                 "delete one to make another"),
    gettext_noop("you have %(limit)s chats, the most one account may have (%(setting)s): no more "
                 "can be started; the site's administrator can raise it"),
    gettext_noop("this chat has %(limit)s sessions (archived ones count: they are kept), the "
                 "most one chat may have (%(setting)s): start a new chat to go on"),
    # library/: an outline point or an editor's `seen` another tab got ahead of
    gettext_noop("outline point %(count)s was changed elsewhere"),
    gettext_noop("the %(kind)s's %(fields)s was sent with a `seen` that does not cover it (the "
                 "editor page's); send the `seen` GET /api/v1/%(kinds)s/{id} shows"),
    # library/character_books.py: SillyTavern's charLore links read from its settings.json
    gettext_noop("this settings.json links more than %(count)s different books to characters "
                 "(world_info.charLore)"),
    gettext_noop("at most %(count)s books"),
    # library/trash.py: a restore of a deleted item
    gettext_noop("%(kind)s '%(id)s' is not in the trash"),
    gettext_noop("A %(kind)s with the id '%(id)s' is live again (restored already?): the deleted "
                 "one stays in the trash."),
    gettext_noop("You already have a persona named “%(name)s”: rename it first, then restore the "
                 "deleted one."),
)
