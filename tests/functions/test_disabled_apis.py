"""An API that is not enabled: "nothing of it runs", or "mlgov cannot see", depending on the API.

Google answers 403 PERMISSION_DENIED with a google.rpc.ErrorInfo of reason SERVICE_DISABLED
naming the service (https://cloud.google.com/apis/design/errors#error_info). For the APIs of
what bills (Compute, GKE, Vertex AI...) it means nothing of them runs, and the run goes on
(tests/functions/test_faults.py). For the Recommender and Cloud Billing it means the opposite:
the idle VMs still run and the billing link is still there, mlgov just cannot see them. Taken
as an empty answer, the reaper reported "nothing idle" every day and the budget alert at
`disable_billing_at` was acknowledged with billing still linked. End to end (functions_framework,
the real clients, the fake cloud): a failure naming the API, answered so that it comes again.

A project whose billing is disabled (403 BILLING_DISABLED; mlgov's own `disable_billing_at`
leaves exactly that) runs and bills nothing: every API's answer there is an empty one, so the
alerts that keep coming over the period are acknowledged rather than redelivered for a day.
"""

from __future__ import annotations

from typing import Any

from tests.functions.conftest import (
    DEV,
    PROD,
    ZONES,
    budget_data,
    log_lines,
    post_report,
    pubsub_event,
    seed_budget,
    send_event,
)

A, B = ZONES


def _disabled(service: str, title: str) -> dict[str, Any]:
    """The 403 Google answers for an API not enabled for the caller's project."""
    return {
        "error": {
            "code": 403,
            "message": f"{title} has not been used in project 123456789012 before or it is "
            "disabled.",
            "status": "PERMISSION_DENIED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "SERVICE_DISABLED",
                    "domain": "googleapis.com",
                    "metadata": {"service": service, "consumer": "projects/123456789012"},
                }
            ],
        }
    }


def test_billing_api_disabled_fails_the_alert_instead_of_skipping_the_unlink(cloud, capsys):
    seed_budget(cloud)
    body = _disabled("cloudbilling.googleapis.com", "Cloud Billing API")
    cloud.server.inject(r"/v1/projects/[^/]+/billingInfo", 403, method="GET", body=body)

    send_event(pubsub_event(budget_data(1.3, 1300)), status=500)  # raised: Pub/Sub redelivers

    assert cloud.compute.status(DEV, A, "vm-run") == "TERMINATED"  # the stops still happened
    assert cloud.billing.accounts[DEV] != ""  # billing could not be unlinked
    [summary] = [x for x in log_lines(capsys.readouterr().out) if x.get("summary")]
    assert summary["severity"] == "ERROR" and summary["answer"] == "raised for redelivery"
    assert any("cloudbilling.googleapis.com" in e and DEV in e for e in summary["errors"])

    # Once the API is enabled, the redelivery unlinks it.
    send_event(pubsub_event(budget_data(1.3, 1300)))
    assert cloud.billing.accounts[DEV] == ""
    assert cloud.billing.accounts[PROD] != ""  # not allowed there


def test_recommender_api_disabled_fails_the_reaper_run_naming_the_api(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    body = _disabled("recommender.googleapis.com", "Recommender API")
    cloud.server.inject(r"/recommendations$", 403, times=3, body=body)

    report = post_report("reap_idle_vms", status=503)

    assert report["failed"] is True
    assert len(report["errors"]) == 3  # every governed zone (DEV: 2, PROD: 1)
    assert all("recommender.googleapis.com" in e for e in report["errors"])
    assert cloud.recommender.state(rec["name"]) == "ACTIVE"

    report = post_report("reap_idle_vms")  # enabled: the retry acts
    assert cloud.compute.status(DEV, A, "idle-1") == "TERMINATED"
    assert cloud.recommender.state(rec["name"]) == "SUCCEEDED"


def test_a_plain_permission_error_stays_a_permission_error(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(r"/recommendations$", 403, times=3)

    report = post_report("reap_idle_vms", status=503)

    assert all("HTTP 403" in e and "SERVICE_DISABLED" not in e for e in report["errors"])


def _billing_disabled(project: str, service: str) -> dict[str, Any]:
    """The 403 an API answers in a project whose billing is disabled.

    The message is the one gcloud shows for Compute ("This API method requires billing to be
    enabled. Please enable billing on project #P by visiting ... then retry."); the ErrorInfo
    follows https://cloud.google.com/apis/design/errors#error_info.
    """
    return {
        "error": {
            "code": 403,
            "message": "This API method requires billing to be enabled. Please enable billing on "
            f"project #{project} by visiting https://console.developers.google.com/billing/"
            f"enable?project={project} then retry.",
            "status": "PERMISSION_DENIED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "BILLING_DISABLED",
                    "domain": "googleapis.com",
                    "metadata": {"service": service, "consumer": f"projects/{project}"},
                }
            ],
        }
    }


def test_alerts_after_mlgov_unlinked_billing_are_answered_not_redelivered(cloud, capsys):
    # disable_billing_at unlinks DEV's billing; Google then stops its resources and its APIs
    # answer 403 BILLING_DISABLED. The budget keeps notifying over the period: each alert must
    # be answered (nothing left to stop), not fail and be redelivered for a day.
    seed_budget(cloud)
    send_event(pubsub_event(budget_data(1.3, 1300), message_id="m1"))
    assert cloud.billing.accounts[DEV] == ""
    capsys.readouterr()
    for pattern, service in [
        (rf"/compute/v1/projects/{DEV}/aggregated/instances", "compute.googleapis.com"),
        (rf"/v2/projects/{DEV}/locations/[^/]+/instances$", "notebooks.googleapis.com"),
        (rf"/v2/projects/{DEV}/locations/[^/]+/nodes$", "tpu.googleapis.com"),
        (rf"/v1/projects/{DEV}/locations/-/clusters$", "container.googleapis.com"),
        (
            rf"/v1/projects/{DEV}/locations/[^/]+/(customJobs|hyperparameterTuningJobs)$",
            "aiplatform.googleapis.com",
        ),
    ]:
        cloud.server.inject(pattern, 403, times=20, body=_billing_disabled(DEV, service))

    send_event(pubsub_event(budget_data(1.4, 1400), message_id="m2"))  # acknowledged

    lines = log_lines(capsys.readouterr().out)
    assert not [x for x in lines if x["severity"] in ("ERROR", "CRITICAL")]
    assert any("billing is disabled in the project" in x["message"] for x in lines)
    [summary] = [x for x in lines if x.get("summary")]
    assert summary["answer"] == "acknowledged"


def test_the_reaper_skips_a_project_whose_billing_is_disabled(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    cloud.recommender.add(DEV, A, "idle-1")
    body = _billing_disabled(DEV, "recommender.googleapis.com")
    cloud.server.inject(
        rf"/v1/projects/{DEV}/locations/[^/]+/recommenders/", 403, times=2, body=body
    )

    report = post_report("reap_idle_vms")  # 200: nothing there runs or bills

    assert report["errors"] == []
