"""What the commands read: plan documents, Pulumi's offline formats, the project and its stacks.

document.py is the plan document (its type and the one loader), project.py and stack_config.py
find the user's Pulumi project and assemble a stack's config as `pulumi up` does. The readers
of `pulumi preview --json` and `pulumi stack export` are the rest:

Each reader turns one format into mlgov's plan document (docs/architecture.md#plan-document:
resources with type, name and inputs, plus the stack, project and region), so `check`, `diff`,
`comment` and the policy and cost paths read nothing new. detect.py decides which format a parsed
file is and refuses the shapes that cannot be read; preview.py and stack_export.py convert;
values.py cleans property values, location.py resolves project, region and zone through providers
and default_labels.py merges a provider's `defaultLabels` into its resources' labels. The
specification is tests/formats/data/FORMAT.md (written from the engine's source): docstrings cite
its sections as "FORMAT §n".
"""
