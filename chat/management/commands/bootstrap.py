from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

OWN_ADMIN = ("An account named admin exists and is not a superuser; "
             "create one with `python manage.py createsuperuser`.")


class Command(BaseCommand):
    help = "First start: create a local admin account (once) and say how to log in."

    def handle(self, *args, **options) -> None:
        if not admin_ensure():
            self.stdout.write(OWN_ADMIN)
            return
        self.stdout.write(self.style.SUCCESS(login_text()))


def admin_ensure() -> bool:
    """Create the first admin once, its password kept in the data folder. False when an account
    named admin is someone's own (never taken over) and there is no superuser."""
    User = get_user_model()
    if User.objects.filter(is_superuser=True).exists():
        return True
    password = secrets.token_urlsafe(12)
    admin = User.objects.filter(username="admin").first()
    if admin is None:
        admin = User.objects.create_superuser("admin", "", password)
    elif not admin.has_usable_password():
        # `reindex` on a fresh database recreated the owner the files name ("admin", the
        # demo's) without a password: this is the first admin coming back.
        admin.is_staff = admin.is_superuser = True
        admin.set_password(password)
        admin.save()
    else:
        return False
    password_file = _password_file()
    password_file.parent.mkdir(parents=True, exist_ok=True)
    password_file.write_text(password + "\n")
    password_file.chmod(0o600)
    _stamp_file().write_text(_hash_stamp(admin.password) + "\n")
    _stamp_file().chmod(0o600)
    return True


def login_text() -> str:
    """Where to go and how to log in, as `make run` serves (it passes HOST and PORT on)."""
    address = f"http://{settings.SERVE_HOST}:{settings.SERVE_PORT}/"
    password_file = _password_file()
    if not password_file.exists():
        return f"\n  Open {address} and log in with your existing admin account.\n"
    stamp = _stamp_file()
    if stamp.exists() and stamp.read_text().strip() != _hash_stamp(
            get_user_model().objects.filter(username="admin")
            .values_list("password", flat=True).first() or ""):
        # Changed in /admin/ since: the file's password is no longer the admin's, and printing
        # it at every start only misleads (or shows an old one that may still be used elsewhere).
        return f"\n  Open {address} and log in as admin with the password you gave it.\n"
    password = password_file.read_text().strip()
    return (f"\n  Open {address} and log in as  admin / {password}"
            f"\n  (password kept in {password_file}; change it in /admin/)\n")


def _password_file():
    return settings.PERSONALAB_DATA_DIR / ".admin_password"


def _stamp_file():
    """A digest of the admin's stored password hash when the password was made: a different
    one says it was changed since (the hash itself is costly to check against the password)."""
    return settings.PERSONALAB_DATA_DIR / ".admin_password.stamp"


def _hash_stamp(stored: str) -> str:
    return hashlib.sha256(stored.encode()).hexdigest()
