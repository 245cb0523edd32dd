"""Label keys with a meaning to the functions (docs/architecture.md#labels), defined once here.

The functions cannot import policies/mlgov_policies/vocabulary.py (they deploy alone), so these
are copies; tests/contract/test_labels.py pins them equal to the vocabulary's. Which exemption
label the functions honour is MLGOV_POLICY.exempt_label (governance renders EXEMPT_LABEL and
EXEMPT_VALUE into it); the expiry label has no setting.
"""

from __future__ import annotations

from typing import Final

EXPIRES_LABEL: Final = "mlgov-expires-on"
"""`mlgov-expires-on: "YYYY-MM-DD"`: reap_expired stops the resource after that date."""
EXEMPT_LABEL: Final = "mlgov-exempt"
"""`mlgov-exempt: "true"`: automation never stops or changes the resource."""
EXEMPT_VALUE: Final = "true"
UNDEPLOY_LABEL: Final = "mlgov-undeploy-at-cap"
"""`mlgov-undeploy-at-cap: "true"`: the cap may undeploy its models (with the policy opt-in)."""
UNDEPLOY_VALUE: Final = "true"
WORKLOAD_LABEL: Final = "workload"
"""The cost-attribution label whose value says what a GPU VM is for (idle_gpu.workloads)."""
