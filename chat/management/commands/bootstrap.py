from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "First start: create a local admin account (once) and say how to log in."

    def handle(self, *args, **options) -> None:
        User = get_user_model()
        password_file = settings.PERSONALAB_DATA_DIR / ".admin_password"
        if not User.objects.filter(is_superuser=True).exists():
            password = secrets.token_urlsafe(12)
            admin = User.objects.filter(username="admin").first()
            if admin is None:
                User.objects.create_superuser("admin", "", password)
            elif not admin.has_usable_password():
                # `reindex` on a fresh database recreated the owner the files name ("admin",
                # the demo's) without a password: this is the first admin coming back.
                admin.is_staff = admin.is_superuser = True
                admin.set_password(password)
                admin.save()
            else:  # someone's own account: never taken over
                self.stdout.write("An account named admin exists and is not a superuser; "
                                  "create one with `python manage.py createsuperuser`.")
                return
            password_file.parent.mkdir(parents=True, exist_ok=True)
            password_file.write_text(password + "\n")
            password_file.chmod(0o600)
        if password_file.exists():
            password = password_file.read_text().strip()
            self.stdout.write(self.style.SUCCESS(
                f"\n  Log in at {_address()} as  admin / " + password +
                f"\n  (password kept in {password_file}; change it in /admin/)"
                # make run sets up the demo and loads the recall models after this: the address
                # answered a minute later, and a newcomer who opened it at once saw no server.
                "\n  The address answers once the server says \"Listening on TCP address\""
                " (after the demo is set up: up to a minute).\n"))
        else:
            self.stdout.write("Log in with your existing admin account.")


def _address() -> str:
    """Where `make run` serves (it passes HOST and PORT on), so the message is the real one."""
    return f"http://{settings.SERVE_HOST}:{settings.SERVE_PORT}/"
