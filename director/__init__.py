"""Plot-outline control: which outline point the story is on, the goal it gives the prompt,
and how progress markers in replies move it (`logic.py` the pure rules; `services.py` its
settings, the step a turn takes, the status pages show). Floor: above memory, library and
personalab/lib; never imports chat."""
