"""Prompt building blocks that chat/pipeline.py wires together: card fields, example
dialogues and the user/assistant alternation of the messages sent."""
