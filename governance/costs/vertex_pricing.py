"""What one Vertex AI node costs an hour: its machine type and attached GPUs at Vertex's rates.

Vertex AI bills training and serving nodes by the machine type and accelerators they run, at its
own prices: Google's published Vertex price for n1-standard-4 is exactly 1.15 x the Compute
Engine on-demand price (catalog `vertex.machine_markup`, with its source), and mlgov prices every
Vertex node as the Compute Engine list price of the same machine and GPUs (catalog.py, no
sustained-use discount: Vertex gives none) times that factor. Each price it returns is a
`Price` of its own (`vertex:<compute key>`) whose note says how it was derived, so a cost line
shows the Vertex rate and where it came from. A machine type the catalog has no Compute Engine
price for, a TPU, or a GPU without a standalone price (A100, H100: Vertex sells them as A2/A3
machines) raises `CostError` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from governance.costs.catalog import Catalog, Price
from governance.costs.errors import CatalogError, CostError
from governance.costs.machines import machine_shape

MARKUP_KEY = "vertex.machine_markup"


@dataclass(frozen=True, slots=True)
class NodePart:
    """One priced part of a node: what it is, its Vertex price and how many a node has."""

    what: str
    price: Price
    per_node: float
    detail: str


def _vertex(price: Price, markup: Price) -> Price:
    return replace(
        price,
        key=f"vertex:{price.key}",
        usd=price.usd * markup.usd,
        note=f"Compute Engine {price.key} ${price.usd:g} x {markup.usd:g} ({markup.note})",
    )


def node_parts(
    catalog: Catalog,
    machine_type: str,
    accelerator_type: str,
    accelerator_count: int,
    region: str,
) -> list[NodePart]:
    """The parts one node of `machine_type` (+ accelerators) bills an hour, at Vertex prices."""
    markup = catalog.price(MARKUP_KEY, "global")
    try:
        shape = machine_shape(machine_type, catalog)
    except CatalogError as err:
        raise CostError(f"Vertex AI machine: {err}") from None
    if shape.tpu:
        raise CostError(f"Vertex AI machine {machine_type!r}: TPU nodes have no catalog price")
    parts: list[NodePart] = []
    type_key = f"gce.type.{shape.name}"
    if shape.name and catalog.has(type_key):
        parts.append(NodePart("machine", _vertex(catalog.price(type_key, region), markup), 1, ""))
    elif shape.generic or shape.fixed_key:
        raise CostError(f"Vertex AI machine {machine_type!r}: no Compute Engine price for it")
    else:
        family = f"{shape.family}-custom" if shape.custom else shape.family
        if not catalog.has(f"gce.{family}.vcpu"):
            raise CostError(f"Vertex AI machine {machine_type!r}: no {family} vCPU/RAM price")
        for what, unit, count in (("vCPU", "vcpu", shape.vcpus), ("RAM", "ram", shape.memory_gib)):
            price = _vertex(catalog.price(f"gce.{family}.{unit}", region), markup)
            parts.append(NodePart(what, price, count, f"{count:g} {what} x "))
    if accelerator_type.upper() == "ACCELERATOR_TYPE_UNSPECIFIED":
        accelerator_type = ""
    if accelerator_count > 0 and accelerator_type and not shape.gpu:
        model = accelerator_type.lower().replace("_", "-")
        if not catalog.has(f"gpu.{model}"):
            raise CostError(
                f"Vertex AI accelerator {accelerator_type}: no standalone price "
                "(A100 and H100 come with A2/A3 machine types)"
            )
        gpu = _vertex(catalog.price(f"gpu.{model}", region), markup)
        parts.append(NodePart("GPU", gpu, accelerator_count, f"{accelerator_count} x {model} x "))
    return parts
