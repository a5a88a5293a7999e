"""``arena tune``: a bot's declared parameters tuned by SPSA (docs/tuning.md)."""
