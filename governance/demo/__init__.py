# pyright: basic
"""`make demo`: mlgov's operator commands against a local cloud, narrated step by step.

Everything runs on this machine, nothing talks to Google: a BigQuery emulator holds a month of
the dev project's billing export (shaped as Google documents the export tables), and a fake
Google Cloud holds the dev stack as its plan says it deploys it. The demo then runs `mlgov
spend`, `mlgov jobs list` and `mlgov cap status`, sends a budget notification to the budget
function (dry run, then for real), and puts the GKE cluster back with `mlgov cap restore`.

It imports nothing from the test suite: the fake cloud, its recorded answers, the export rows
and the emulator's start-up are governance/fakecloud/, shipped with it. It still runs from a
checkout (`make demo`, or `python -m governance.demo` in one): the dev stack, the functions'
source and the emulator's own virtualenv (`make bqemulator`) are the checkout's. See
docs/demo.md.
"""
