"""The settings of the Daphnes the browser tests start, and of the process that prepares their
data folder (tests/prepared_data.py): the app's, with a fast password hash first. Each login
verified the admin's PBKDF2 hash (a million rounds, about 0.22 s of CPU) and the walks log in and
sign up often: about 11 s of the test servers' CPU a run (issue 31). PBKDF2 stays listed, so a
password hashed by the app's own settings still logs in (Django rehashes it with the fast hash
at that login). The hash is not what these tests check; the test processes use the same one
(tests/conftest.py). fsync is off, as in the test processes (tests/fsync_off.py)."""

from django.conf import global_settings

from personalab.settings import *  # noqa: F403 — the app's settings, the hashers changed
from tests.fsync_off import fsync_off

fsync_off()

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher",
                    *global_settings.PASSWORD_HASHERS]
