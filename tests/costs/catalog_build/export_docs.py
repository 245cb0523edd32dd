"""Small export and documented documents in the real shapes, for the generator's unit tests.

Shapes copy Cyclenerd's pricing.yml (see tests/costs/data/pricing-reference.yml); the prices
are us-central1 figures from it (N1, G2) or chosen so the arithmetic is easy to follow.
"""

from __future__ import annotations

import copy
from typing import Any


def _cost(hour: float, spot: float, sud: float = 1.0, y1: float | None = None) -> dict[str, float]:
    hour, spot = round(hour, 9), round(spot, 9)  # prices are whole nano-dollars, as in the export
    out = {
        "hour": hour,
        "hour_spot": spot,
        "month": round(hour * 730 * sud, 9),
        "month_spot": round(spot * 730, 9),
    }
    if y1 is not None:
        out["month_1y"] = round(round(y1, 9) * 730, 9)
        out["month_3y"] = round(round(y1 * 0.7, 9) * 730, 9)
    return out


def _n1(cpu: int, ram: float) -> dict[str, Any]:
    return {
        "cpu": cpu,
        "ram": ram,
        "cost": {
            "us-central1": _cost(
                cpu * 0.031611 + ram * 0.004237,
                cpu * 0.01115 + ram * 0.001494,
                0.7,
                cpu * 0.019915 + ram * 0.002669,
            ),
            "europe-west4": _cost(
                cpu * 0.034802 + ram * 0.004664, cpu * 0.0202 + ram * 0.0027, 0.7
            ),
        },
    }


def _g2(cpu: int, l4: int) -> dict[str, Any]:
    hour = cpu * 0.036688 + l4 * 0.560040239
    return {"cpu": cpu, "ram": cpu * 4, "l4": l4, "cost": {"us-central1": _cost(hour, hour / 2)}}


EXPORT: dict[str, Any] = {
    "about": {
        "copyright": "Copyright 2022-2025 Nils Knieling (Apache-2.0)",
        "generated": "Thu Jul 30 06:13:17 2026",
        "url": "https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator",
    },
    "compute": {
        "instance": {
            "n1-standard-4": _n1(4, 15),
            "n1-standard-8": _n1(8, 30),
            "n1-highmem-2": _n1(2, 13),
            "g2-standard-4": _g2(4, 1),
            "g2-standard-8": _g2(8, 1),
            "g2-standard-24": _g2(24, 2),
            "f1-micro": {
                "cpu": 1,
                "ram": 0.6,
                "cost": {
                    "us-central1": {
                        "hour": 0.0076,
                        "hour_spot": 0.000684,
                        "month": 3.8836,
                        "month_1y": 3.8836,
                        "month_3y": 3.8836,
                        "month_spot": 0.49932,
                    }
                },
            },
            "z3-highmem-8-highlssd": {
                "cpu": 8,
                "ram": 64,
                "local-ssd": 3000,
                "cost": {"us-central1": {"hour": 1.5 + 3000 * 0.08 / 730}},
            },
        },
        "storage": {
            "balanced": {
                "type": "pd-balanced",
                "cost": {"us-central1": {"month": 0.1}, "europe-west4": {"month": 0.11}},
            },
            "local": {
                "type": "pd-local",
                "cost": {
                    "us-central1": {
                        "month": 0.08,
                        "month_spot": 0.0428,
                        "month_1y": 0.0504,
                        "month_3y": 0.036,
                    }
                },
            },
            "snapshot": {
                "type": "pd-snapshot",
                "cost": {"us-central1": {"month": 0.05}, "us-multi": {"month": 0.065}},
            },
        },
        "network": {
            "nat": {
                "gateway": {
                    "cost": {
                        "us-central1": {"hour": 0.0448, "month": 32.704},
                        "europe-west4": {"hour": 0.0448, "month": 32.704},
                    }
                },
                "data": {
                    "cost": {"us-central1": {"month": 0.045}, "europe-west4": {"month": 0.05}}
                },
            },
            "ip": {"vm": {"cost": {"us-central1": {"hour": 0.005, "month": 3.65}}}},
            "vpn": {"tunnel": {"cost": {"us-central1": {"hour": 0.05, "month": 36.5}}}},
            "traffic": {
                "egress": {
                    "internet": {
                        "cost": {
                            "0-1": {"us-central1": {"month": 0.12}},
                            "10n": {"us-central1": {"month": 0.08}},
                        },
                        # pricing.yml's own shape: destination -> cost -> tier -> region
                        "china": {"cost": {"1-10": {"us-central1": {"month": 0.22}}}},
                        "australia": {"cost": {"0-1": {"us-central1": {"month": 0.19}}}},
                    }
                }
            },
        },
    },
    "storage": {
        "bucket": {
            "standard": {"cost": {"us-central1": {"month": 0.02}}},
            "standard-multi": {"cost": {"us-multi": {"month": 0.026}}},
            "archiv": {"cost": {"us-central1": {"month": 0.0012}}},
        },
        "retrieval": {"archiv": {"cost": {"us-central1": {"month": 0.05}}}},
    },
    "region": {"us-central1": {"location": "Iowa"}, "europe-west4": {"location": "Netherlands"}},
    "dual-region": {"nam4": {"regions": ["us-central1", "us-east1"]}},
    "multi-region": {"us-multi": {"description": "Data centers in the United States"}},
}

DOCUMENTED: dict[str, Any] = {
    "sources": {"sky": {"title": "SkyPilot GCP catalog", "url": "https://example.test/sky"}},
    "sud_tables": {
        "source_url": "https://cloud.google.com/compute/docs/sustained-use-discounts",
        "date": "2026-11-21",
        "tables": {"n1": [1.0, 0.8, 0.6, 0.4], "n2": [1.0, 0.8678, 0.733, 0.6]},
    },
    "availability": {"tpu.v4": {"source": "sky", "regions": ["us-central2"]}},
    "entries": [
        {
            "key": "tpu.v4.chip",
            "unit": "chip-hour",
            "source": "sky",
            "date": "2026-11-23",
            "note": "row tpu-v4-8 / 4 chips",
            "values": {"ondemand": {"us-central2": 3.22}, "spot": {"us-central2": 0.9215}},
        },
        {
            "key": "gke.cluster",
            "unit": "hour",
            "date": "2026-11-21",
            "source": "https://cloud.google.com/kubernetes-engine/pricing",
            "values": {"ondemand": {"global": 0.1}},
        },
    ],
}


def export_doc() -> dict[str, Any]:
    """A fresh deep copy of EXPORT to mutate."""
    return copy.deepcopy(EXPORT)


def documented_doc() -> dict[str, Any]:
    """A fresh deep copy of DOCUMENTED to mutate."""
    return copy.deepcopy(DOCUMENTED)
