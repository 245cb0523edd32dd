"""The mlgov CrossGuard policy pack: `pulumi preview --policy-pack policies`.

Constructing PolicyPack starts the analyzer's gRPC server and never returns, so nothing may
import this file; the policies themselves live in mlgov_policies.
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from mlgov_policies.pack import POLICIES

PolicyPack(
    name="mlgov",
    enforcement_level=EnforcementLevel.ADVISORY,  # each policy sets its own level
    policies=POLICIES,
)
