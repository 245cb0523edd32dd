"""Property values from Pulumi's formats: what is dropped, blinded, kept unknown (FORMAT §1.7)."""

from __future__ import annotations

import json

import pytest

from governance.inputs.values import (
    SECRET,
    SECRET_FIELDS,
    UNKNOWN,
    Cleaner,
    is_secret_field,
)

SIG = "4dabf18193072939515e22adb298388d"


def test_internal_keys_are_dropped_at_every_depth_and_inside_lists() -> None:
    cleaner = Cleaner()
    got = cleaner.inputs(
        {
            "__defaults": ["name"],
            "name": "a",
            "bootDisk": {"__defaults": [], "initializeParams": {"__defaults": [], "size": 10}},
            "networkInterfaces": [{"__defaults": [], "network": "default"}],
            "__meta": "{}",
        }
    )
    assert got == {
        "name": "a",
        "bootDisk": {"initializeParams": {"size": 10}},
        "networkInterfaces": [{"network": "default"}],
    }


def test_unknown_sentinel_is_kept_wherever_it_is_and_counted() -> None:
    cleaner = Cleaner()
    got = cleaner.inputs({"machineType": UNKNOWN, "disks": [{"source": UNKNOWN}]})
    assert got == {"machineType": UNKNOWN, "disks": [{"source": UNKNOWN}]}
    assert cleaner.unknowns == 2


@pytest.mark.parametrize(
    "secret",
    [
        "[secret]",  # the digest (FORMAT §1.7)
        {SIG: "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "v1:abc:def"},  # state
        {SIG: "1b47061264138c4ac30d75fd1eb44270", "plaintext": '"hunter2"'},  # --show-secrets
        {SIG: "1b47061264138c4ac30d75fd1eb44270", "ciphertext": "[secret]"},  # JSON-lines events
    ],
)
def test_every_secret_shape_becomes_the_redaction_marker(secret: object) -> None:
    cleaner = Cleaner()
    got = cleaner.inputs({"settings": {"rootPassword": secret}, "list": [secret]})
    assert got == {"settings": {"rootPassword": SECRET}, "list": [SECRET]}
    assert cleaner.secrets == 2
    assert "hunter2" not in json.dumps(got) and "v1:abc" not in json.dumps(got)


def test_password_like_fields_are_blinded_even_when_not_marked_secret() -> None:
    cleaner = Cleaner()
    got = cleaner.inputs(
        {
            "password": "plain-text",
            "secretData": {"a": 1},
            "settings": {"masterPassword": "p", "rootPassword": "", "clientSecret": "s"},
            "name": "x",
            "secretId": "my-secret",  # a name, not a credential
            "oidcToken": {"audience": "https://x"},  # the Scheduler rule reads it
        }
    )
    assert got == {
        "password": SECRET,
        "secretData": SECRET,
        "settings": {"masterPassword": SECRET, "rootPassword": "", "clientSecret": SECRET},
        "name": "x",
        "secretId": "my-secret",
        "oidcToken": {"audience": "https://x"},
    }
    assert cleaner.secrets == 4


def test_the_fields_plan_blinds_for_mlgovs_own_program_are_blinded_here_too() -> None:
    from governance.review import offline

    assert all(is_secret_field(key) for key in offline.SECRET_FIELDS)
    assert SECRET_FIELDS == offline.SECRET_FIELDS
    assert offline.REDACTED == SECRET


def test_assets_archives_references_bytes_and_special_floats() -> None:
    cleaner = Cleaner()
    got = cleaner.inputs(
        {
            "file": {SIG: "c44067f5952c0a294b673a41bacd8c17", "hash": "h", "path": "main.py"},
            "text": {SIG: "c44067f5952c0a294b673a41bacd8c17", "hash": "h", "text": "big"},
            "zip": {SIG: "0def7320c3a5731c473e5ecbe6d01bc7", "hash": "h", "uri": "gs://b/o.zip"},
            "ref": {SIG: "5cf8f73096256a8f31e491e813e4eb8e", "urn": "urn:x", "id": "net-1"},
            "ref_unknown": {SIG: "5cf8f73096256a8f31e491e813e4eb8e", "urn": "urn:x", "id": UNKNOWN},
            "bytes": {SIG: "803fd3297a5875dc03ca845dda5d2a98", "value": "/w=="},
            "inf": {SIG: "8ad145fe-0d11-4827-bfd7-1abcbf086f5c", "value": "7ff0000000000000"},
            "other": {SIG: "ffffffffffffffffffffffffffffffff"},
        }
    )
    assert got == {
        "file": {"kind": "FileAsset", "path": "main.py"},
        "text": {"kind": "StringAsset"},
        "zip": {"kind": "RemoteArchive", "uri": "gs://b/o.zip"},
        "ref": "net-1",
        "ref_unknown": UNKNOWN,
        "bytes": 'b"/w=="',
        "inf": "inf",
        "other": UNKNOWN,
    }
    assert cleaner.unknowns == 2 and cleaner.secrets == 0


def test_inputs_that_are_not_an_object_are_no_inputs() -> None:
    assert Cleaner().inputs(None) == {}
    assert Cleaner().inputs(["a"]) == {}
