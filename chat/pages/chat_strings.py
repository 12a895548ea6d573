"""The texts the chat page's script shows (static/chat/*.js), in the page's language: handed to
it once, with the page (chat/pages/chat.py), so the script holds no words of its own."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from chat.inspector.names import section_names


def chat_page_strings() -> dict[str, Any]:
    """Texts the page script shows, in the page's language."""
    return {
        "queued": gettext("Not connected: your message is kept and will be sent when the "
                          "connection is back."),
        "disconnected": gettext("Disconnected; retrying in %(s)s s. What you type is kept."),
        "notConnected": gettext("Not connected; try again when the connection is back."),
        "stopped": gettext("Stopped: the partial reply is saved."),
        "stoppedBeforeReply": gettext("Stopped before the reply began."),
        "roundCut": gettext("The last round stopped before %(names)s answered (Stop, or the page "
                            "was closed or reloaded): use “Answer now” under “Characters in this "
                            "story” to let them speak."),
        "nobodyAnswered": gettext("Nobody answers by themselves here (manual order, or every "
                                  "member muted): pick who speaks with “Answer now” under "
                                  "“Characters in this story” (☰ Story on a phone)."),
        "error": gettext("Error:"),
        "refusedKept": gettext("Your message stays in the chat: after the change, press ↻ "
                               "Regenerate to have it answered (or edit it)."),
        "unanswered": gettext("The connection was lost before your message was answered: if no "
                              "reply comes, press ↻ Regenerate to have it answered."),
        "choosing": gettext("Choosing who answers…"),
        "asideKept": gettext("kept apart from the story"),
        "asideStopped": gettext("stopped"),
        "impersonating": gettext("Writing your next message…"),
        "impersonateStopped": gettext("Stopped: what was written is in the box."),
        "impersonateFailed": gettext("No suggestion: %(s)s What you typed is kept."),
        "deleted": gettext("Message deleted."),
        "undo": gettext("Undo"),
        "restored": gettext("Restored."),
        "hidden": gettext("Hidden from the model: it stays here, and is neither sent nor "
                          "remembered."),
        "unhidden": gettext("The model sees this message again."),
        "copied": gettext("Copied."),
        "copyRefused": gettext("Copy is not allowed here."),
        "branched": gettext("Branched: %(s)s starts from here; the old one is kept in History."),
        "conversation": gettext("conversation %(number)s"),
        "conversationShort": gettext("conv. %(number)s"),
        "messageActions": gettext("Message actions"),
        "starting": gettext("Starting…"),
        "took": gettext("took %(s)s s"),
        "dismiss": gettext("Dismiss"),
        "memoryStopped": gettext("Stopped: no answer came (the connection or the server went "
                                 "away); if the server restarted, the action did not finish: "
                                 "start it again."),
        "chatLocked": gettext("The chat is locked until this finishes."),
        "exporting": gettext("Exporting… A long chat takes a few seconds: the file comes by "
                             "itself."),
        "exportSeconds": gettext("(%(s)s s)"),
        "exported": gettext("Exported: %(s)s."),
        "exportBroken": gettext("The export stopped: the connection broke. Try again."),
        "memoryStillRunning": gettext("The connection was lost; the action still runs on the "
                                      "server. Reload the page when it is done."),
        "you": gettext("You"),
        "placeholderTouch": gettext("Say something… (Enter for a new line, Send to send)"),
        "placeholderKeys": gettext("Say something… (Enter to send, Shift+Enter for a new line)"),
        "save": gettext("Save"),
        "cancel": gettext("Cancel"),
        "reasoning": gettext("Reasoning"),
        "warningDetails": gettext("Double-click for details"),
        "warningType": gettext("Warning"),
        "warningCategory": gettext("Category"),
        "warningValue": gettext("Current value"),
        "warningThreshold": gettext("Suggested threshold"),
        "warningSuggestion": gettext("What to do"),
        # The prompt-size bar names its parts as the prompt inspector does
        # (chat/inspector/names.py).
        "sectionNames": section_names(),
        "sectionTokens": gettext("%(name)s: %(tokens)s tokens"),
        "promptTokens": gettext("%(total)s / %(limit)s tokens"),
        # the header's mark on a phone: a touch screen shows no title, a reader reads this
        "promptShare": gettext("Last prompt: %(share)s of its budget (%(tokens)s)"),
        "promptNextTurn": gettext("This conversation's prompt is measured at its next turn."),
        "worldInfoEntry": gettext("World info entry"),
        "promptBlock": gettext("Prompt block: %(name)s"),
        **_info_strings(),
    }


def _info_strings() -> dict[str, str]:
    """A message's Info (static/chat/info.js) and "Go to message"."""
    return {
        "infoTitle": gettext("Message #%(s)s"), "infoFrom": gettext("From"),
        "infoWritten": gettext("Written"), "infoTurn": gettext("Turn"),
        "infoLength": gettext("Length"), "infoCharacters": gettext("%(s)s characters"),
        "infoModel": gettext("Model"), "infoPromptTokens": gettext("Prompt"),
        "infoReplyTokens": gettext("Reply"), "infoTokens": gettext("%(s)s tokens"),
        "infoFirstToken": gettext("First words after"), "infoTook": gettext("Written in"),
        "infoSeconds": gettext("%(s)s s"), "infoSpeedLabel": gettext("Speed"),
        "infoSpeed": gettext("%(s)s tokens/s"), "infoReading": gettext("Reading…"),
        "infoNoModel": gettext("No model wrote this message (yours, a greeting or an imported "
                               "line): nothing more to show."),
        "infoUnfinished": gettext("This reply did not finish (stopped or interrupted)."),
        "jumpMissing": gettext("There is no message #%(s)s in this conversation."),
    }
