"""Indexes live in library and chat; this app keeps its state in files."""
