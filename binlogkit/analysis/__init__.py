"""pandas analysis of binlogs and slow logs: frames, rotations, pile-ups, stalls, plots.

The only package that imports pandas; `binlogkit print` never loads it."""
