"""mlgov: a cost-governed ML platform on Google Cloud, as Pulumi components plus offline tools.

Light on purpose: `import governance` loads nothing else, so the offline CLI's `check` and
`diff` start fast. The layout shows the architecture:

- `governance.settings`: the validated stack settings (one module per section);
- `governance.components`: the Pulumi components, the functions' deployer and the platform
  assembly (importing it loads pulumi_gcp);
- `governance.cli`: the `mlgov` command, one module per command;
- `governance.inputs`: what the commands read: plan documents, Pulumi's formats, the project;
- `governance.review`: judging a plan: planning offline, the checks, the cost and governance
  diffs, the pull-request comment and the PR judge;
- `governance.text`: tables, wrapping, Markdown escaping, terminal safety, progress;
- `governance.cap`, `governance.report`, `governance.spend`, `governance.spend_caps`: the
  budget cap's marks and restore, the HTML report, the billing export, the spend caps;
- `governance.costs`: the cost models and price catalog;
- `governance.labels`, `governance.naming`: labels and physical names, shared by all.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mlgov")  # single source: pyproject.toml's [project] version
except PackageNotFoundError:  # a checkout used without installing it
    __version__ = "0+unknown"
