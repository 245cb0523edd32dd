"""mlgov's policy rules, one module per service; each rule's metadata sits beside its check.

A module defines its checks and one `ResourceRule`/`StackRule` value per check, and nothing
happens at import time. registry.py lists every rule once, in one literal tuple. Adding a rule:
the check and its rule value here, one line in `registry.RULES`, its cases in
`tests/policies/test_rules_<service>.py`.
"""
