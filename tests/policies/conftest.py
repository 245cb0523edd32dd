"""Puts tests/policies on sys.path (pytest's prepend import mode does so for a conftest's folder),
so the acceptance/ and schema/ tests can use the shared policy_cases and policy_fixtures."""
