"""What authors write: characters, backgrounds (a world and its story outline), lorebooks and
world-info activation, character-card import and export (V2, V3, PNG, CharX, Agnai), personas.
Stands on personalab/lib only."""
