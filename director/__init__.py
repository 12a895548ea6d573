"""Plot-outline control: which outline point the story is on, the goal it gives the prompt,
and how progress markers in replies move it. Stands on the floors below (memory, library,
personalab/lib)."""
