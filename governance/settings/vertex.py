"""`vertex`: optional Vertex AI experiment tracking (component: components/vertex.py).

Only what Pulumi can provision and the guide recommends for tracking experiments: a Vertex AI
TensorBoard and a Vertex ML Metadata store, each in the stack's region and only when enabled.
Serving endpoints are the users' own resources; the policy rules (rules/vertex.py) bound them.
"""

from __future__ import annotations

from governance.settings.accepted import Flag
from governance.settings.base import Model


class VertexSettings(Model):
    """Which Vertex AI tracking resources the stack provisions."""

    tensorboard: Flag = False
    metadata_store: Flag = False
