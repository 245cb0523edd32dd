"""Resolve the policy's scopes to projects, for every entry point (Cloud Asset Inventory).

Each scope is searched once per invocation (every page), concurrently; the runner's policy is
then rebuilt with the projects they govern (resolve.governed), so every flow after this reads
and acts on them like on listed projects. A scope whose search fails or finds no governed
project acts on nothing: one ERROR line naming it and a run error, so the invocation answers
non-2xx (a budget alert is redelivered, Cloud Scheduler retries) while other scopes and listed
projects are still acted on. Never "everything". Selection is resolve.py's (pure).
"""

from __future__ import annotations

from collections.abc import Sequence

from govern import clock, resolve
from govern.execute import Runner, log
from govern.models import FoundProject
from govern.ports import PortError, Ports


def resolve_scopes(runner: Runner, ports: Ports, keys: Sequence[str]) -> resolve.Resolution:
    """Search each scope in `keys` (keys of runner.policy.scopes); what each resolved to."""
    policy = runner.policy
    wanted = sorted(set(keys))
    if not wanted:
        return resolve.Resolution()

    def search(key: str) -> tuple[str, tuple[str, ...] | None, str]:
        try:
            found: list[FoundProject] = runner.call(key, ports.assets.search_projects, key)
        except (PortError, clock.OutOfTime) as err:
            return key, None, f"search failed: {err}"
        for bad in getattr(found, "unreadable", ()):
            runner.note_unreadable(bad)
        ids = resolve.selected(found, policy.scopes[key])
        if not ids:
            scope = policy.scopes[key]
            labels = ", ".join(f"{k}={v}" for k, v in sorted(scope.labels.items()))
            return (
                key,
                None,
                (
                    f"no ACTIVE project found{f' with labels {labels}' if labels else ''} "
                    f"({len(found)} project(s) searched)"
                ),
            )
        log(
            "INFO",
            f"scope {key}: {len(ids)} project(s) governed ({len(found)} found)",
            scope=key,
            projects=len(ids),
        )
        return key, ids, ""

    answers = runner.map(search, wanted, project=lambda key: key)
    projects: dict[str, tuple[str, ...]] = {}
    failed: dict[str, str] = {}
    for key, answer in zip(wanted, answers, strict=True):
        if answer is None:
            failed[key] = "not searched: the time budget ran out first"
        elif answer[1] is None:
            failed[key] = answer[2]
        else:
            projects[key] = answer[1]
    for key, why in sorted(failed.items()):
        runner.error(
            f"scope {key}: {why}; it acts on nothing (never everything) and the run is retried",
            scope=key,
        )
    return resolve.Resolution(projects, failed)


def govern_scopes(runner: Runner, ports: Ports, keys: Sequence[str]) -> resolve.Resolution:
    """Resolve `keys` and rebuild runner.policy with the projects they govern."""
    resolution = resolve_scopes(runner, ports, keys)
    if resolution.projects:
        runner.policy = resolve.governed(runner.policy, resolution)
    return resolution
