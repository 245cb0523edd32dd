"""Resolve the policy's scopes to projects, for every entry point (Cloud Asset Inventory).

Each scope is searched once per invocation (every page), concurrently; the runner's policy is
then rebuilt with the projects they govern (resolve.governed), so every flow after this reads
and acts on them like on listed projects. A scope whose search fails or finds no governed
project acts on nothing: one ERROR line naming it and a run error, so the invocation answers
non-2xx (a budget alert is redelivered, Cloud Scheduler retries) while other scopes and listed
projects are still acted on. Never "everything". Selection is resolve.py's (pure).

A canary folder (MLGOV_POLICY.blast_radius.canary) is resolved the same way, without a label
selector (every ACTIVE project under it is canary; the reapers act only on governed ones):
`canary_resolver` answers flows/guarded.py and the fan-out dispatcher. One that fails or finds
nothing is not a run error here: the canary's hold says what it held back, and pages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from govern import clock, resolve
from govern.execute import Runner, log
from govern.models import FoundProject
from govern.ports import PortError, Ports

Labels = Mapping[str, str]


def _search(
    runner: Runner, ports: Ports, wanted: Mapping[str, Labels], what: str
) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """Search each folder or organization in `wanted` for its ACTIVE projects with its labels.

    (What each found, why each other one found nothing.) `what`: "scope" or "canary", for the
    log line.
    """
    keys = sorted(wanted)
    if not keys:
        return {}, {}

    def search(key: str) -> tuple[str, tuple[str, ...] | None, str]:
        try:
            found: list[FoundProject] = runner.call(key, ports.assets.search_projects, key)
        except (PortError, clock.OutOfTime) as err:
            return key, None, f"search failed: {err}"
        for bad in getattr(found, "unreadable", ()):
            runner.note_unreadable(bad)
        labels = wanted[key]
        ids = resolve.active_with_labels(found, labels)
        if not ids:
            shown = ", ".join(f"{k}={v}" for k, v in sorted(labels.items()))
            return (
                key,
                None,
                (
                    f"no ACTIVE project found{f' with labels {shown}' if shown else ''} "
                    f"({len(found)} project(s) searched)"
                ),
            )
        log(
            "INFO",
            f"{what} {key}: {len(ids)} project(s) governed ({len(found)} found)",
            **{what: key},
            projects=len(ids),
        )
        return key, ids, ""

    answers = runner.map(search, keys, project=lambda key: key)
    projects: dict[str, tuple[str, ...]] = {}
    failed: dict[str, str] = {}
    for key, answer in zip(keys, answers, strict=True):
        if answer is None:
            failed[key] = "not searched: the time budget ran out first"
        elif answer[1] is None:
            failed[key] = answer[2]
        else:
            projects[key] = answer[1]
    return projects, failed


def resolve_scopes(runner: Runner, ports: Ports, keys: Sequence[str]) -> resolve.Resolution:
    """Search each scope in `keys` (keys of runner.policy.scopes); what each resolved to."""
    policy = runner.policy
    wanted = {k: policy.scopes[k].labels for k in set(keys)}
    projects, failed = _search(runner, ports, wanted, "scope")
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


def canary_resolver(runner: Runner, ports: Ports) -> Callable[[str], Sequence[str]]:
    """Lists a canary folder's ACTIVE projects (Asset Inventory, every page), once per folder.

    Raises LookupError (blast.canary_projects' "unresolved") when the search fails or finds
    no project: an ERROR line names the folder; the canary's hold pages.
    """
    known: dict[str, tuple[str, ...] | str] = {}

    def resolver(folder: str) -> Sequence[str]:
        if folder not in known:
            projects, failed = _search(runner, ports, {folder: {}}, "canary")
            known[folder] = projects.get(folder) or failed.get(folder, "nothing found")
        answer = known[folder]
        if not isinstance(answer, str):
            return answer
        log("ERROR", f"canary {folder}: {answer}", canary=folder)
        raise LookupError(f"canary {folder}: {answer}")

    return resolver
