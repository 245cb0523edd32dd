"""Schema validation of resource inputs against the installed pulumi-gcp/pulumi-random types."""
