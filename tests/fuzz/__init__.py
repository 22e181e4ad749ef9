"""The robustness fuzz suite (issue 9): seeded hypothesis cases over the C-style entry points,
run one at a time in a persistent worker process (worker.py) that a runner (runner.py)
restarts after a crash or a hang. See README.md in this folder."""
