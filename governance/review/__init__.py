"""Judging a plan: plan a stack offline, check it, and review its change for a pull request.

plan.py builds and checks plan documents (offline.py runs the program under mocks,
policy_scope.py and policy_config.py choose the policies), render.py and explain.py show them,
diff.py is the cost diff, govdiff/ the governance diff, judge/ the code-and-approvals part of
the PR judge, and comment.py writes the pull-request comment from all of them.
"""
