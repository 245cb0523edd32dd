"""The action kinds the functions can run, and `ACTIONS`, the literal table execute.py runs from.

Adding a kind: one module here with its frozen dataclass (fields, `verb`, `permissions`, `run`),
one line in `ACTIONS`, and its test (tests/functions/test_actions.py). A flow that emits it lists
it in its `Flow.actions`, which is how the function's IAM role gets its permissions.
"""

from __future__ import annotations

from typing import Final

from govern.actions.base import Action, Call, Confirm, Done, Skip
from govern.actions.confirm_stop import ConfirmStop
from govern.actions.disable_billing import DisableBilling
from govern.actions.gke import CapAutoprovisioning, CapNodePool
from govern.actions.queued import WithdrawQueuedResource
from govern.actions.reap_recommendation import ReapRecommendation, ReleaseClaim
from govern.actions.stop import StopInstance, StopNotebook, StopTpuNode, StopWorkload
from govern.actions.vertex import (
    CancelCustomJob,
    CancelTuningJob,
    CancelVertexJob,
    UndeployEndpoint,
)

ACTIONS: Final[tuple[type[Action], ...]] = (
    StopInstance,
    StopNotebook,
    StopTpuNode,
    ConfirmStop,
    ReapRecommendation,
    ReleaseClaim,
    DisableBilling,
    CapNodePool,
    CapAutoprovisioning,
    CancelCustomJob,
    CancelTuningJob,
    UndeployEndpoint,
    WithdrawQueuedResource,
)
"""Every kind execute.apply may run; anything else is reported as failed ("no executor")."""

__all__ = [
    "ACTIONS",
    "Action",
    "Call",
    "CancelCustomJob",
    "CancelTuningJob",
    "CancelVertexJob",
    "CapAutoprovisioning",
    "CapNodePool",
    "Confirm",
    "ConfirmStop",
    "DisableBilling",
    "Done",
    "ReapRecommendation",
    "ReleaseClaim",
    "Skip",
    "StopInstance",
    "StopNotebook",
    "StopTpuNode",
    "StopWorkload",
    "UndeployEndpoint",
    "WithdrawQueuedResource",
]
