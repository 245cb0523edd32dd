"""Readers of Pulumi's own offline formats: `pulumi preview --json` and `pulumi stack export`.

Each reader turns one format into mlgov's plan document (DESIGN.md contract 1: resources with
type, name and inputs, plus the stack, project and region), so `check`, `diff`, `comment` and
the policy and cost paths read nothing new. detect.py decides which format a parsed file is and
refuses the shapes that cannot be read; preview.py and stack_export.py convert; values.py
cleans property values, location.py resolves project, region and zone through providers and
default_labels.py merges a provider's `defaultLabels` into its resources' labels.
The specification is ../shared/realdata/pulumi-formats/FORMAT.md (written from the engine's
source): docstrings cite its sections as "FORMAT §n".
"""
