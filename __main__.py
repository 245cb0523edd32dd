"""mlgov: a cost-governed ML platform on Google Cloud, one stack per environment.

Thin on purpose: read the validated settings once, build the components in dependency order,
export what operators need. Decisions live in governance/settings/ and governance/components/.
"""

import pulumi

from governance.components.program import build_platform
from governance.settings import read_settings

settings = read_settings()
platform = build_platform(settings)

for key, value in platform.outputs().items():
    pulumi.export(key, value)
