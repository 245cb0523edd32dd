"""Read-decide-act flows, one module per entry point, written against the ports.

Each module holds the flow function (ports and a Runner in, a Report out) and its `Flow`
declaration (reads and action kinds). `FLOWS` is the literal table permissions.py derives each
function's IAM permissions from. main.py decodes the trigger and calls one of these.
"""

from __future__ import annotations

from typing import Final

from govern.flows import dispatch
from govern.flows.base import Flow
from govern.flows.budget import BUDGET_ALERT, Quiet, budget_alert
from govern.flows.expired import REAP_EXPIRED, reap_expired
from govern.flows.idle_gpus import REAP_IDLE_GPUS, reap_idle_gpus
from govern.flows.idle_vms import REAP_IDLE_VMS, reap_idle_vms
from govern.flows.spend_caps import SpendCapNotice
from govern.flows.work import ON_DEAD_LETTER, ON_WORK_ITEM, Worked, work_item

FLOWS: Final[tuple[Flow, ...]] = (
    BUDGET_ALERT,
    REAP_IDLE_VMS,
    REAP_EXPIRED,
    REAP_IDLE_GPUS,
    ON_WORK_ITEM,
    ON_DEAD_LETTER,
)

__all__ = [
    "BUDGET_ALERT",
    "FLOWS",
    "ON_DEAD_LETTER",
    "ON_WORK_ITEM",
    "REAP_EXPIRED",
    "REAP_IDLE_GPUS",
    "REAP_IDLE_VMS",
    "Flow",
    "Quiet",
    "SpendCapNotice",
    "Worked",
    "budget_alert",
    "dispatch",
    "reap_expired",
    "reap_idle_gpus",
    "reap_idle_vms",
    "work_item",
]
