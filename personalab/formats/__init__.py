"""Number formats that differ from Django's own (FORMAT_MODULE_PATH): only what is set here
replaces Django's; dates and the rest stay as Django has them."""
