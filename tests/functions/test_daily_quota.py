"""A quota counted per day is reported at once, naming it; a per-minute one is retried.

The Recommender answers "HTTP status code 429 RESOURCE_EXHAUSTED" past its per-minute and
per-day read and write quotas (https://cloud.google.com/recommender/quotas; the free tier is 100
reads a day per organization). Google names the quota in the error's google.rpc.ErrorInfo
(reason RATE_LIMIT_EXCEEDED, metadata `quota_limit`, `quota_metric`, `quota_unit`
"1/d/{project}" or "1/min/{project}", `quota_limit_value`; https://cloud.google.com/apis/design/errors).
The bodies below follow that shape as public 429 answers show it (e.g. Cloud Tasks' and the
Weather API's per-day quota errors quoted in their users' repositories); the Recommender's own
quota names are not published, so `ReadRequestsPerDayPerOrganization` is illustrative.

Before: every 429 was retried for up to 30 s of the invocation, so a used-up daily quota cost
each run its retries and was reported as "gave up retrying (HTTP 429)", without the quota.
End to end: functions_framework, the real recommender_v1 client, the fake cloud's clock.
"""

from __future__ import annotations

import pytest

from tests.functions.conftest import DEV, ZONES, post_report

A = ZONES[0]
RECS = "/recommendations"


def _quota_error(limit: str, unit: str) -> dict:
    per = "day" if "/d/" in unit else "minute"
    return {
        "error": {
            "code": 429,
            "message": (
                "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per "
                f"{per}' of service 'recommender.googleapis.com' for consumer "
                "'project_number:123456789012'."
            ),
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "RATE_LIMIT_EXCEEDED",
                    "domain": "googleapis.com",
                    "metadata": {
                        "service": "recommender.googleapis.com",
                        "consumer": "projects/123456789012",
                        "quota_metric": "recommender.googleapis.com/read_requests",
                        "quota_limit": limit,
                        "quota_unit": unit,
                        "quota_limit_value": "100",
                        "quota_location": "global",
                    },
                }
            ],
        }
    }


DAILY = _quota_error("ReadRequestsPerDayPerOrganization", "1/d/{project}")
PER_MINUTE = _quota_error("ReadRequestsPerMinutePerOrganization", "1/min/{project}")


def test_a_daily_quota_429_is_reported_at_once_naming_the_quota(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(RECS, 429, times=1000, method="GET", body=DAILY)

    report = post_report("reap_idle_vms", status=503)  # a failure of the run, named

    lists = cloud.server.calls("GET", RECS)
    # One request per governed zone, none retried, no time spent waiting.
    assert len(lists) == len({r.path for r in lists})
    assert cloud.clock.slept == []
    [error] = [e for e in report["errors"] if f"{DEV}/{A}" in e]
    assert "per-day quota ReadRequestsPerDayPerOrganization" in error
    assert "recommender.googleapis.com/read_requests" in error and "not retried" in error
    assert cloud.recommender.state(rec["name"]) == "ACTIVE"  # nothing claimed


def test_a_per_minute_quota_429_is_retried_and_the_run_succeeds(cloud):
    cloud.compute.add(DEV, A, "idle-1")
    rec = cloud.recommender.add(DEV, A, "idle-1")
    cloud.server.inject(RECS, 429, times=2, method="GET", body=PER_MINUTE)

    report = post_report("reap_idle_vms")

    assert report["errors"] == []
    assert cloud.recommender.state(rec["name"]) == "SUCCEEDED"
    assert cloud.clock.slept  # it waited (on the fake clock) before trying again


@pytest.mark.parametrize(
    ("metadata", "message", "expected"),
    [
        ({"quota_limit": "defaultPerDayPerProject", "quota_unit": "1/d/{project}"}, "", True),
        ({"quota_limit": "ReadsPerMinute", "quota_unit": "1/min/{project}"}, "", False),
        ({}, "Quota exceeded for quota metric 'Reads' and limit 'Reads per day' of ...", True),
        ({}, "Quota exceeded for quota metric 'Reads' and limit 'Reads per minute' of ...", False),
    ],
)
def test_what_counts_as_a_daily_quota(metadata, message, expected):
    from google.api_core import exceptions as ex

    from govern.gcp.clients import daily_quota, is_transient

    details = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "metadata": metadata}]
    err = ex.TooManyRequests(message, details=details if metadata else [])
    assert bool(daily_quota(err)) is expected
    assert is_transient(err) is not expected
