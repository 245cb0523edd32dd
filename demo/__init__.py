"""`make demo`: mlgov's operator commands against a local cloud, narrated step by step.

Everything runs on this machine, nothing talks to Google: a BigQuery emulator holds a month of
the dev project's billing export (shaped as Google documents the export tables), and a fake
Google Cloud holds the dev stack as its plan says it deploys it. The demo then runs `mlgov
spend`, `mlgov jobs list` and `mlgov cap status`, sends a budget notification to the budget
function (dry run, then for real), and puts the GKE cluster back with `mlgov cap restore`.

This is repository tooling, not part of the wheel: the fake cloud (tests/fakegcp), its recorded
answers (tests/functions/data), the export rows (tests/spend) and the emulator's own virtualenv
(`make bqemulator`) live in the checkout, so the demo needs one. See docs/demo.md.
"""
