"""mlgov governance core: pure models and decisions, execution, and thin GCP adapters.

`models`, `parse`, `decide`, `permissions` and `execute` use only the standard library.
`gcp` holds the adapters over the google-cloud-* clients and imports them lazily.
"""
