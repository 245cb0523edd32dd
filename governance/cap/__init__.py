"""`mlgov cap`: what the budget cap changed in a stack's governed projects, and restoring it.

One concern per module: marks.py decodes the marks the cap writes (pure), stack.py says where
to look and what the stack declares (the ceilings), gke.py and vertex.py turn what they find
into items (plan.py) with the writes that undo the cap, api.py makes the REST calls;
governance/cli/cap.py is the subcommand.
"""
