"""The `mlgov` command: argument parsing and the one error format, one module per command.

`main.py` parses arguments and dispatches; each command lives in its own module (`costs.py`:
`diff`, `comment` and `prices`; `jobs.py`, `init.py`, `cap.py`, `spend_caps.py`, `spend.py`,
`report.py`, `judge.py`, `policy_config.py`; `plan` and `check` in main.py with `batch.py`,
`plan_cache.py` and `checkout.py` for several stacks and other checkouts). `flags.py` holds the
flags several commands share. The work itself lives in the rooms below: governance/review/,
governance/inputs/, governance/text/ and the feature packages; none of them imports this one.
"""
