"""NotebookFleet: Vertex AI Workbench instances that cost nothing while nobody uses them.

It owns the Workbench instances (in the stack's zones, idle shutdown with guest attributes on, no
public IP, no root for notebook users unless a notebook opts in; machine type and GPU are checked
against the environment's allow-list by the settings, not here), their service account, and the
optional office-hours schedule: Cloud Scheduler jobs that call the Notebooks API `:stop` (and
`:start`) with an OAuth token, through a service account that may only start and stop notebooks.
Budget-driven stops live in functions/.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

import pulumi
import pulumi_gcp as gcp

from governance.components.identity import member
from governance.labels import Labels
from governance.naming import account_id, resource_name, role_id
from mlgov_policies.vocabulary import (
    ROOT_ACCESS_LABEL,
    ROOT_ACCESS_VALUE,
    WORKBENCH_DISABLE_ROOT_KEY,
    component_type,
)

NOTEBOOKS_API = "https://notebooks.googleapis.com/v2"
# The scheduler identity needs nothing but these two permissions.
SCHEDULE_PERMISSIONS = ("notebooks.instances.start", "notebooks.instances.stop")


@dataclass(frozen=True, kw_only=True)
class Accelerator:
    """A GPU attached to a notebook or VM (`type` as the API names it, e.g. NVIDIA_TESLA_T4)."""

    type: str
    count: int = 1


@dataclass(frozen=True, kw_only=True)
class OfficeHours:
    """Stop (and optionally start) a notebook weekly: `HH:MM` times, cron days (0 = Sunday)."""

    stop: str = "19:00"
    start: str | None = None
    days: str = "1-5"
    timezone: str = "Etc/UTC"


@dataclass(frozen=True, kw_only=True)
class Notebook:
    """One Workbench instance, in `zone`; stopped after `idle_minutes` without kernel activity."""

    zone: str
    machine_type: str = "e2-standard-4"
    idle_minutes: int = 60
    owner: str | None = None
    gpu: Accelerator | None = None
    boot_disk_gb: int = 150
    data_disk_gb: int = 100
    office_hours: OfficeHours | None = None
    expires_on: date | None = None
    exempt: bool = False
    # Root (sudo) for the notebook's users; off unless opted in (then labelled as such).
    root_access: bool = False


@dataclass(frozen=True, kw_only=True)
class NotebookFleetArgs:
    """What NotebookFleet needs: the notebooks by key (the key becomes part of each name)."""

    prefix: str
    project: str
    region: str
    notebooks: Mapping[str, Notebook]
    labels: Labels
    network_id: pulumi.Input[str]
    subnet_id: pulumi.Input[str]


def office_hours_cron(hhmm: str, days: str) -> str:
    """A Cloud Scheduler (unix-cron) expression for `hhmm` on `days` (0=Sunday)."""
    hour, minute = hhmm.split(":")
    return f"{int(minute)} {int(hour)} * * {days}"


def notebook_metadata(notebook: Notebook) -> dict[str, str]:
    """Workbench metadata: idle shutdown needs guest attributes to see kernel activity."""
    metadata = {
        "idle-timeout-seconds": str(notebook.idle_minutes * 60),
        "enable-guest-attributes": "TRUE",
        "disable-mixer": "false",
        # Workbench gives notebook users root unless this is "true" (its default is "false";
        # "Manage features through metadata", Vertex AI Workbench instances docs:
        # https://cloud.google.com/vertex-ai/docs/workbench/instances/manage-metadata).
        WORKBENCH_DISABLE_ROOT_KEY: "false" if notebook.root_access else "true",
    }
    if notebook.gpu is not None:
        metadata["install-nvidia-driver"] = "True"
    return metadata


class NotebookFleet(pulumi.ComponentResource):
    """The team's Workbench instances, with idle shutdown and optional office hours."""

    instance_names: pulumi.Output[list[str]]
    service_account_email: pulumi.Output[str]

    def __init__(
        self, name: str, args: NotebookFleetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(component_type("NotebookFleet"), name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        account = gcp.serviceaccount.Account(
            f"{name}-sa",
            account_id=account_id(args.prefix, "notebooks"),
            project=args.project,
            display_name="mlgov Workbench notebooks",
            opts=child,
        )
        scheduler_email: pulumi.Output[str] | None = None
        if any(nb.office_hours is not None for nb in args.notebooks.values()):
            scheduler_email = self._scheduler_identity(name, args, child)

        instances: list[gcp.workbench.Instance] = []
        for key, nb in args.notebooks.items():
            zone = nb.zone
            instance_name = resource_name(args.prefix, "nb", key)
            labels = args.labels.for_workload(
                "notebook", expires_on=nb.expires_on, exempt=nb.exempt
            ).as_dict()
            if nb.root_access:
                # The opt-in the root-access policy rule accepts, visible in every listing.
                labels = dict(sorted({**labels, ROOT_ACCESS_LABEL: ROOT_ACCESS_VALUE}.items()))
            accelerators = (
                [
                    gcp.workbench.InstanceGceSetupAcceleratorConfigArgs(
                        type=nb.gpu.type, core_count=str(nb.gpu.count)
                    )
                ]
                if nb.gpu is not None
                else None
            )
            instance = gcp.workbench.Instance(
                f"{name}-{key}",
                name=instance_name,
                project=args.project,
                location=zone,
                labels=labels,
                instance_owners=[nb.owner] if nb.owner else None,
                disable_proxy_access=False,
                gce_setup=gcp.workbench.InstanceGceSetupArgs(
                    machine_type=nb.machine_type,
                    accelerator_configs=accelerators,
                    # No public IP: egress goes through Cloud NAT, Google APIs through PGA.
                    disable_public_ip=True,
                    network_interfaces=[
                        gcp.workbench.InstanceGceSetupNetworkInterfaceArgs(
                            network=args.network_id, subnet=args.subnet_id
                        )
                    ],
                    metadata=notebook_metadata(nb),
                    boot_disk=gcp.workbench.InstanceGceSetupBootDiskArgs(
                        disk_size_gb=str(nb.boot_disk_gb), disk_type="PD_BALANCED"
                    ),
                    data_disks=gcp.workbench.InstanceGceSetupDataDisksArgs(
                        disk_size_gb=str(nb.data_disk_gb), disk_type="PD_BALANCED"
                    ),
                    service_accounts=[
                        gcp.workbench.InstanceGceSetupServiceAccountArgs(email=account.email)
                    ],
                    shielded_instance_config=gcp.workbench.InstanceGceSetupShieldedInstanceConfigArgs(
                        enable_secure_boot=True, enable_vtpm=True, enable_integrity_monitoring=True
                    ),
                ),
                opts=child,
            )
            instances.append(instance)
            if nb.office_hours is not None and scheduler_email is not None:
                self._office_hours(
                    name,
                    key,
                    args,
                    zone,
                    instance_name,
                    nb.office_hours,
                    scheduler_email,
                    instance,
                    child,
                )

        self.instance_names = pulumi.Output.all(*[i.name for i in instances]).apply(list)
        self.service_account_email = account.email
        self.register_outputs(
            {
                "instance_names": self.instance_names,
                "service_account_email": self.service_account_email,
            }
        )

    @staticmethod
    def _scheduler_identity(
        name: str, args: NotebookFleetArgs, child: pulumi.ResourceOptions
    ) -> pulumi.Output[str]:
        account = gcp.serviceaccount.Account(
            f"{name}-scheduler-sa",
            account_id=account_id(args.prefix, "nb-schedule"),
            project=args.project,
            display_name="mlgov notebook office hours",
            opts=child,
        )
        role = gcp.projects.IAMCustomRole(
            f"{name}-scheduler-role",
            role_id=role_id(args.prefix, "notebook_schedule"),
            project=args.project,
            title="mlgov notebook office hours",
            permissions=list(SCHEDULE_PERMISSIONS),
            stage="GA",
            opts=child,
        )
        gcp.projects.IAMMember(
            f"{name}-scheduler-binding",
            project=args.project,
            role=role.name,
            member=member(account.email),
            opts=child,
        )
        return account.email

    @staticmethod
    def _office_hours(
        name: str,
        key: str,
        args: NotebookFleetArgs,
        zone: str,
        instance_name: str,
        hours: OfficeHours,
        scheduler_email: pulumi.Output[str],
        instance: gcp.workbench.Instance,
        child: pulumi.ResourceOptions,
    ) -> None:
        base = f"{NOTEBOOKS_API}/projects/{args.project}/locations/{zone}/instances/{instance_name}"
        verbs = [("stop", hours.stop)] + ([("start", hours.start)] if hours.start else [])
        for verb, at in verbs:
            gcp.cloudscheduler.Job(
                f"{name}-{key}-{verb}",
                name=resource_name(args.prefix, "nb", key, verb),
                project=args.project,
                region=args.region,
                description=f"office hours: {verb} notebook {instance_name}",
                schedule=office_hours_cron(at, hours.days),
                time_zone=hours.timezone,
                attempt_deadline="320s",
                retry_config=gcp.cloudscheduler.JobRetryConfigArgs(retry_count=3),
                http_target=gcp.cloudscheduler.JobHttpTargetArgs(
                    uri=f"{base}:{verb}",
                    http_method="POST",
                    # Google APIs take OAuth access tokens (OIDC is for Cloud Run/Functions).
                    oauth_token=gcp.cloudscheduler.JobHttpTargetOauthTokenArgs(
                        service_account_email=scheduler_email,
                        scope="https://www.googleapis.com/auth/cloud-platform",
                    ),
                ),
                opts=pulumi.ResourceOptions(parent=child.parent, depends_on=[instance]),
            )
