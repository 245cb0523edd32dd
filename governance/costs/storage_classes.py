"""Cloud Storage classes by the names the JSON API takes, legacy names included.

`storageClass` takes MULTI_REGIONAL, REGIONAL, STANDARD, NEARLINE, COLDLINE, ARCHIVE and
DURABLE_REDUCED_AVAILABILITY (storage v1 discovery document, `Bucket.storageClass`). Google
documents the legacy ones (https://cloud.google.com/storage/docs/storage-classes#legacy):
Multi-Regional and Regional storage are "equivalent to Standard storage" (only the locations
they may be used in differ), so they bill as Standard; Durable Reduced Availability has its own
storage price (the export's `dra` class: catalog `storage.dra`) and is priced with Nearline for
operations (https://cloud.google.com/storage/pricing, "Nearline Storage and Durable Reduced
Availability (DRA) storage"), without Nearline's retrieval fee or minimum duration. Any other
name is one Cloud Storage refuses, so the bucket could not be created.
"""

from __future__ import annotations

from dataclasses import dataclass

from governance.costs.errors import Refused

LEGACY_PAGE = "https://cloud.google.com/storage/docs/storage-classes#legacy"


@dataclass(frozen=True, slots=True)
class StorageClass:
    """A storage class as the catalog prices it (`storage.<key>`, `storage.ops.*.<key>`)."""

    api: str  # as written, upper-cased (REGIONAL)
    key: str  # catalog class (standard)
    retrieval: bool  # reading it bills a retrieval fee (`storage.retrieval.<key>`)
    note: str = ""  # why a legacy name is priced as another class

    @property
    def legacy(self) -> bool:
        """A name Cloud Storage keeps for old buckets (priced as `key`)."""
        return bool(self.note)


_STANDARD_TOO = (
    "{api} is a legacy class, 'equivalent to Standard storage' ({page}): priced as STANDARD"
)
_CLASSES = {
    "STANDARD": StorageClass("STANDARD", "standard", False),
    "NEARLINE": StorageClass("NEARLINE", "nearline", True),
    "COLDLINE": StorageClass("COLDLINE", "coldline", True),
    "ARCHIVE": StorageClass("ARCHIVE", "archive", True),
    "MULTI_REGIONAL": StorageClass(
        "MULTI_REGIONAL",
        "standard",
        False,
        _STANDARD_TOO.format(api="MULTI_REGIONAL", page=LEGACY_PAGE),
    ),
    "REGIONAL": StorageClass(
        "REGIONAL", "standard", False, _STANDARD_TOO.format(api="REGIONAL", page=LEGACY_PAGE)
    ),
    "DURABLE_REDUCED_AVAILABILITY": StorageClass(
        "DURABLE_REDUCED_AVAILABILITY",
        "dra",
        False,
        "DURABLE_REDUCED_AVAILABILITY is a legacy class with its own storage price (catalog "
        f"storage.dra) and Nearline's operation prices ({LEGACY_PAGE})",
    ),
}


def storage_class(name: str, where: str) -> StorageClass:
    """The class a `storageClass` value names (`where`: its key path); `Refused` if none."""
    found = _CLASSES.get(name.strip().upper())
    if found is None:
        shown = repr(name) if len(name) <= 40 else f"{name[:36]!r}..."
        raise Refused(
            f"{where} is {shown}: Cloud Storage takes {', '.join(_CLASSES)} "
            "(storage v1 API, Bucket.storageClass), so creating the bucket would fail"
        )
    return found
