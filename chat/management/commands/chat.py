from __future__ import annotations

import asyncio
import sys

from django.core.management.base import BaseCommand, CommandError

from chat.groups.round import conversation_turn
from memory import runtime
from personalab.lib.errors import AppError
from personalab.lib.ids import InvalidId, validate_id
from personalab.lib.jsontext import text_surrogates_replace
from personalab.storage import get_store


class Command(BaseCommand):
    help = 'Play one streamed turn in the terminal: chat INSTANCE_ID "text"'

    def add_arguments(self, parser) -> None:
        parser.add_argument("instance_id")
        parser.add_argument("text")
        parser.add_argument("--speaker", help="with several characters: the one who answers")

    def handle(self, *args, **options) -> None:
        try:
            instance_id = validate_id(options["instance_id"], kind="instance id")
        except InvalidId as exc:
            raise CommandError(str(exc)) from None
        store = get_store()
        if instance_id not in store.instance_ids():
            raise CommandError(f"instance {instance_id} not found in {store.root}")
        try:
            # Bytes of the argument that are not UTF-8 arrive as lone surrogates (surrogateescape).
            text = text_surrogates_replace(options["text"])
            results = asyncio.run(self._round(store, instance_id, text, options.get("speaker")))
        except AppError as exc:  # a refused turn, a speaker who is not a member, a busy instance
            raise CommandError(exc.message) from None
        runtime.drain()
        if not results:
            self.stdout.write(self.style.NOTICE(
                "[nobody was picked to answer: this conversation's reply order is manual; "
                "name one with --speaker]"))
        for result in results:
            self.stdout.write("")
            self.stdout.write(self.style.NOTICE(
                f"[{result.session_id} turn {result.turn} · trace {result.trace_id}"
                f"{' · interrupted' if result.interrupted else ''}"
                f"{' · error' if result.error else ''}]"))

    async def _round(self, store, instance_id: str, text: str, speaker: str | None):
        """The same round as the WebSocket and REST play: one reply, or with several characters
        each one who answers, named before its reply."""
        async def emit(event: dict) -> None:
            if event["type"] == "speaker":
                sys.stdout.write(f"\n{event.get('name') or event.get('speaker')}: ")
            elif event["type"] == "token":
                sys.stdout.write(event["content"])
            elif event["type"] == "warning":
                sys.stderr.write(f"\n⚠ {event.get('message')}\n")
            elif event["type"] == "error":
                sys.stderr.write(f"\n✖ {event.get('message')}\n")
            sys.stdout.flush()

        return await conversation_turn(store, instance_id=instance_id, user_text=text, emit=emit,
                                       speaker=speaker)
