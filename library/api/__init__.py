"""The library's REST routes under /api/v1/ (django-ninja): personas, characters,
backgrounds and card import/export (`items`), lorebooks (`lorebooks`), an account's
regex scripts (`regex_scripts`); their shapes in `schemas`."""
