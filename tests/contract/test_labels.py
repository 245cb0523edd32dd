"""The label keys the functions act on are the ones the vocabulary defines (docs/architecture.md#labels).

functions/ cannot import policies/ (it deploys alone), so govern/labels.py keeps copies.
"""

from __future__ import annotations

from govern import labels
from mlgov_policies import vocabulary


def test_expiry_label_is_the_vocabulary_one():
    assert labels.EXPIRES_LABEL == vocabulary.EXPIRES_LABEL


def test_exemption_label_is_the_vocabulary_one():
    assert (labels.EXEMPT_LABEL, labels.EXEMPT_VALUE) == (
        vocabulary.EXEMPT_LABEL,
        vocabulary.EXEMPT_VALUE,
    )


def test_workload_label_is_a_required_cost_label():
    assert labels.WORKLOAD_LABEL in vocabulary.REQUIRED_LABELS


def test_undeploy_label_is_the_vocabulary_one():
    assert (labels.UNDEPLOY_LABEL, labels.UNDEPLOY_VALUE) == (
        vocabulary.UNDEPLOY_LABEL,
        vocabulary.UNDEPLOY_VALUE,
    )
