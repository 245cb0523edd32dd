"""The pull-request judge: what in a PR is code that decides governance, and who approved it.

The PR check runs in two parts (docs/reference/policies.md, "Protect the check itself"): the
PR's own program only produces plan documents, read as untrusted data; this package and the rest
of mlgov judge them from the PR base's checkout. `code.py` says which changed files decide
governance (everything but stack files and prose), `owners.py` who owns each one (the base's
CODEOWNERS), `approvals.py` whether each is approved by an owner on the PR's head commit (pure),
`github.py` reads the reviews from GitHub's REST API, `render.py` writes the comment's section.
"""
