#!/usr/bin/env python
"""Django's command-line utility for htrbrowser."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "htrbrowser.settings")
    from django.core.management import execute_from_command_line

    from htrbrowser.env import SettingError

    try:
        execute_from_command_line(sys.argv)
    except SettingError as error:
        sys.exit(f"htrbrowser cannot start: {error}")


if __name__ == "__main__":
    main()
