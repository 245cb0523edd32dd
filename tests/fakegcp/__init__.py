"""A local fake of Google Cloud REST APIs for tests: the real client libraries talk to it.

`server.py` holds the generic HTTP machinery (routing, request log, latency, fault injection);
service modules beside it hold the state and JSON shapes of one API each.
"""
