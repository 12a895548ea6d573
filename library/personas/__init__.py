"""The player's personas: create, change, pick the default, delete, a picture
(`services`), where a description goes in the prompt (`positions`), and
SillyTavern's personas backup or settings.json restored (`restore`)."""
