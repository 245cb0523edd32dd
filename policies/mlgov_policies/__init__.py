"""mlgov policy rules, usable three ways: CrossGuard pack, offline check, tests.

Pure modules (importable without pulumi): vocabulary, props, config, rule, rules/*, registry,
evaluate. Only pack.py imports pulumi_policy; only policies/__main__.py builds the PolicyPack.
"""
