"""mlgov governance core: the functions' models, decisions, flows, action framework and adapters.

Everything but `gcp` uses only the standard library: `models` and `labels` (values), `parse`
(raw input to models), `decide` (pure decisions), `actions` (the action kinds), `flows` (one
read-decide-act flow per entry point), `execute` (the action framework), `permissions` (derived
IAM permissions), `ports`, `clock` and `retry`. `gcp` holds the adapters over the
google-cloud-* clients and imports them lazily.
"""
