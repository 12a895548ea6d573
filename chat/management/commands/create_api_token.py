from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from chat.models import ApiToken


class Command(BaseCommand):
    help = "Issue an API bearer token for USERNAME (printed once; only its hash is stored)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")

    def handle(self, *args, **options) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user named {options['username']!r}")
        self.stdout.write(ApiToken.issue(user))
