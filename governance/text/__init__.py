"""Text for people: plain tables that fit a width, Markdown escaping, terminal safety, progress.

Nothing here knows a plan document: layout.py fits tables, escape.py shows untrusted text as
text, terminal.py keeps control sequences out of a terminal, fit.py folds a PR comment into
GitHub's size limit, progress.py draws the spinner on stderr.
"""
