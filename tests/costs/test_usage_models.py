"""Each cost file registers its usage model; assumptions.py composes exactly the registered ones."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
from types import ModuleType

import pytest
from pydantic import BaseModel

import governance.costs
from governance.costs.assumptions import UsageAssumptions
from governance.costs.catalog import default_catalog
from governance.costs.context import PlanContext
from governance.costs.registry import PRICED, usage_models
from governance.costs.resources import nat, workbench
from governance.costs.usage_models import CommonUsage, usage_model


def cost_modules() -> list[ModuleType]:
    """Every module of governance/costs/, imported (a `__main__` would run a command: skipped)."""
    prefix = governance.costs.__name__ + "."
    return [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(governance.costs.__path__, prefix)
        if not info.name.endswith(".__main__")
    ]


def usage_classes(module: ModuleType) -> set[type[BaseModel]]:
    """The `*Usage` pydantic models a module defines (a type's stack-wide knobs, by convention)."""
    return {
        obj
        for name, obj in vars(module).items()
        if inspect.isclass(obj)
        and issubclass(obj, BaseModel)
        and obj.__module__ == module.__name__
        and name.endswith("Usage")
        and obj not in (CommonUsage, UsageAssumptions)
    }


def knobs_read(module: ModuleType) -> set[type[BaseModel]]:
    """The models a module's source reads knobs of: `ctx.knobs(Model)`."""
    tree = ast.parse(inspect.getsource(module))
    return {
        getattr(module, node.args[0].id)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "knobs"
        and node.args
        and isinstance(node.args[0], ast.Name)
    }


def test_the_registry_is_complete_and_composed_in_place_order():
    models = usage_models()
    assert len(models) == 13
    assert {nat.NatUsage, workbench.WorkbenchUsage} <= set(models)
    # pydantic orders fields from the last base to the first: common knobs, then by place
    assert UsageAssumptions.__bases__ == (*reversed(models), CommonUsage)
    assert models[0] is workbench.WorkbenchUsage
    assert models[-1].__name__ == "VertexUsage"


@pytest.mark.parametrize("type_", sorted(PRICED))
def test_a_priced_types_usage_model_is_registered(type_):
    module = sys.modules[PRICED[type_].__module__]
    models = usage_classes(module) | knobs_read(module)
    unregistered = sorted(m.__name__ for m in models - set(usage_models()))
    assert not unregistered, (
        f"{type_}: {module.__name__} defines or reads {unregistered}, not registered with "
        "@usage_model: its knobs are missing from mlgov:settings.usage"
    )


def test_every_usage_model_anywhere_in_costs_is_registered():
    # shared pricing modules (gke_pools.py: a cluster's pools and node pools) hold knobs too
    found = {m for module in cost_modules() for m in usage_classes(module) | knobs_read(module)}
    assert found == set(usage_models())


def test_each_knob_belongs_to_one_model():
    owners: dict[str, str] = {}
    for model in (CommonUsage, *usage_models()):
        for knob in model.model_fields:
            assert knob not in owners, f"{knob}: in {owners[knob]} and {model.__name__}"
            owners[knob] = model.__name__
    assert set(owners) == set(UsageAssumptions.model_fields)


def test_a_place_is_taken_once():
    class QueueUsage(BaseModel):
        pass

    before = usage_models()
    with pytest.raises(ValueError, match=r"WorkbenchUsage and .*QueueUsage both claim place 10"):
        usage_model(place=10)(QueueUsage)
    assert usage_models() == before


def test_a_cost_model_reads_its_own_knobs_from_the_stacks_assumptions():
    usage = UsageAssumptions(nat_vm_count=40, default_region="europe-west4")
    ctx = PlanContext.build([], usage, default_catalog())
    assert ctx.knobs(nat.NatUsage).nat_vm_count == 40
    assert ctx.knobs(nat.NatUsage) is usage  # a typed view, not a copy

    class QueueUsage(BaseModel):
        queue_gb: float = 1.0

    with pytest.raises(TypeError, match=r"QueueUsage is not a registered usage model.*@usage"):
        ctx.knobs(QueueUsage)
