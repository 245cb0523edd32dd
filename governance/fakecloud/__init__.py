# pyright: basic
"""A local fake of Google Cloud REST APIs: the real client libraries talk to it on 127.0.0.1.

`server.py` holds the generic HTTP machinery (routing, request log, latency, fault injection);
service modules beside it hold the state and JSON shapes of one API each, built from the
recorded answers in recorded/ (copies of the suite's recordings; tests/fakegcp holds the
originals and checks the fake's answers against them). bqemulator.py starts the BigQuery
emulator (its own virtualenv, `make bqemulator`, from bqemulator.txt) and export_rows.py
makes a month of billing export rows for it.

Shipped so that `make demo` (governance/demo/) stands without the test suite; the tests and
bench/ import it too. Nothing of the product imports it.
"""
