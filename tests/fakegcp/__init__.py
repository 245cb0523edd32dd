"""The fake cloud's honesty: its answers checked against recorded answers of the real APIs.

The fake itself is governance/fakecloud/ (shipped, for `make demo`); recorded/ here holds the
recordings, and test_recorded_shapes.py compares the fake's JSON with them.
"""
