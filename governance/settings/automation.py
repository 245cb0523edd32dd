"""`automation`: what the governance functions may do and when they run.

The deployer is governance/components/automation.py; the policy JSON the functions read is
rendered from these settings in governance/components/action_settings.py.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from governance.settings.accepted import CronSchedule, Flag
from governance.settings.base import Model, TimeZone
from governance.settings.scopes import (
    BlastRadiusSettings,
    OrganizationKey,
    ScopeKey,
    ScopeSettings,
)


class AutomationSettings(Model):
    """The governance functions: what they may do and when they run."""

    enabled: Flag = True
    dry_run: Flag = True
    allow_billing_disable: Flag = False
    # Cloud Scheduler takes unix-cron: five fields (minute hour day-of-month month weekday).
    reap_idle_vms_schedule: CronSchedule = "0 * * * *"
    reap_expired_schedule: CronSchedule = "30 6 * * *"
    reap_idle_gpus_schedule: CronSchedule = "*/30 * * * *"
    time_zone: TimeZone = "Etc/UTC"
    # gt=0: the functions reject a zero threshold (a GPU at exactly 0% would never count as idle).
    idle_gpu_max_utilization_percent: Annotated[float, Field(gt=0, le=100)] = 5.0
    idle_gpu_window_minutes: Annotated[int, Field(ge=10, le=1440)] = 60
    idle_gpu_workloads: tuple[Annotated[str, Field(min_length=1)], ...] = Field(
        default=("training", "notebook"), min_length=1
    )
    # TPU VMs (reap_idle_gpus, same workloads as GPUs): idle below this mean duty cycle.
    idle_tpu_max_duty_cycle_percent: Annotated[float, Field(gt=0, le=100)] = 5.0
    idle_tpu_window_minutes: Annotated[int, Field(ge=10, le=1440)] = 60
    # At the budget cap, undeploy the models of Vertex AI endpoints labelled
    # mlgov-undeploy-at-cap=true. Off by default: undeploying breaks serving.
    undeploy_endpoints_at_cap: Flag = False
    http_timeout_seconds: Annotated[int, Field(ge=60, le=1800)] = 900  # reapers; <= Scheduler max
    max_instances: Annotated[int, Field(ge=1, le=10)] = 1  # per function: one run at a time
    # Ingress of the three Scheduler-called functions (the budget function is always internal).
    scheduled_ingress: Literal["ALLOW_ALL", "ALLOW_INTERNAL_ONLY"] = "ALLOW_ALL"
    # Organization scale (scopes.py): one work item per project on Pub/Sub, folders and
    # organizations as scopes, and what the reapers may do in one run.
    fan_out: Flag = False
    # Pub/Sub's dead-letter bound is 5..100 delivery attempts; 20 lets a burst wait through
    # backoff (a worker's 429 counts as an attempt: components/worker_sizing.py).
    max_delivery_attempts: Annotated[int, Field(ge=5, le=100)] = 20
    organization: OrganizationKey | None = None
    scopes: dict[ScopeKey, ScopeSettings] = Field(default_factory=dict[str, ScopeSettings])
    blast_radius: BlastRadiusSettings = BlastRadiusSettings()

    def schedules(self) -> dict[str, str]:
        """The unix-cron schedule of each scheduled entry point."""
        return {
            "reap_idle_vms": self.reap_idle_vms_schedule,
            "reap_expired": self.reap_expired_schedule,
            "reap_idle_gpus": self.reap_idle_gpus_schedule,
        }
