"""What keeps a character coherent over hundreds of turns: the Chroma index that follows the
session files, recall (keywords + e5 and MiniLM vectors), the embedding engines, summaries,
persona evolution, recaps and pinned prompts. Stands on library and personalab/lib."""
