#!/usr/bin/env python
import os
import sys

from personalab.lib.supervise import serve_supervise, supervised


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "personalab.settings")
    # Before Django loads: the supervisor stays a small process while its server runs.
    if supervised(sys.argv):
        sys.exit(serve_supervise(argv=sys.argv))
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
