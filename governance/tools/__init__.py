"""The offline tools behind the `mlgov` command: nothing here needs a cloud or the Pulumi CLI.

`cli.py` parses arguments and reports errors in one format; each subcommand lives in its own
module (`plan.py` builds and checks plan documents, `costs_cli.py` diffs costs and refreshes
prices, `jobs.py` drives the cleanup schedules, `policy_config.py` renders the CrossGuard
config). Shared pieces: the Pulumi project and stack files (`project.py`), the plan-document
loader (`document.py`), the mocks runner (`offline.py`), the human views (`render.py`).
"""
