"""Schema validation of resource inputs against the installed pulumi-gcp/pulumi-random types.

validate.py checks one resource's inputs (`validate_inputs`, and the resource-rule adapters
`check` and `check_known_type`); catalog.py reads the generated archive `pulumi_inputs.zip`
lazily per type token; generate.py rebuilds that archive from the installed SDKs and is the
only module here that imports pulumi (`python -m mlgov_policies.schema.generate`, with
`policies/` on sys.path). rules.py declares the two rules the rule index (registry.RULES) lists;
semantic rules live in mlgov_policies/rules/.
"""
