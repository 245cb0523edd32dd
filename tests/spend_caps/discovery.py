"""Check the fake Budget API's exchanges against Google's discovery documents (test oracle).

Every request must be a documented method (HTTP method + flatPath) with documented query
parameters, a body of the method's request schema without output-only fields, and every
successful answer of the response schema, with the documented JSON types (int64 as strings,
enums from the list). billingbudgets.v1 is revision 20261011, as shipped by
google-api-python-client 2.202.0 (tests/policies/compat/discovery_documents.py reads it).
"""

from __future__ import annotations

import re
from typing import Any

from governance.fakecloud.server import Reply, Request
from tests.policies.compat.discovery_documents import document

BUDGETS = "billingbudgets.v1"
BILLING = "cloudbilling.v1"


def api_of(path: str) -> str:
    """The discovery document a request path belongs to."""
    return BUDGETS if "/budgets" in path else BILLING


def _methods(api: str) -> list[tuple[str, re.Pattern[str], dict[str, Any]]]:
    found: list[tuple[str, re.Pattern[str], dict[str, Any]]] = []

    def walk(resource: dict[str, Any]) -> None:
        for method in resource.get("methods", {}).values():
            pattern = re.sub(r"\\\{[^}]+\\\}", "[^/:]+", re.escape(method["flatPath"]))
            found.append((method["httpMethod"], re.compile(f"/{pattern}"), method))
        for sub in resource.get("resources", {}).values():
            walk(sub)

    walk(document(api))
    return found


def method_of(request: Request) -> dict[str, Any]:
    """The one documented method a request is; AssertionError naming it otherwise."""
    api = api_of(request.path)
    matches = [
        m
        for verb, pattern, m in _methods(api)
        if verb == request.method and pattern.fullmatch(request.path)
    ]
    assert len(matches) == 1, f"{request.method} {request.path}: {[m['id'] for m in matches]}"
    return matches[0]


def check(api: str, value: Any, schema: dict[str, Any], where: str, *, sent: bool) -> None:
    """`value` has the schema's shape; a request (`sent`) carries no output-only field."""
    schemas = document(api)["schemas"]
    if "$ref" in schema:
        schema = schemas[schema["$ref"]]
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        for key, item in value.items():
            assert key in schema["properties"], f"{where}.{key}: not a field of {schema.get('id')}"
            field = schema["properties"][key]
            if sent:
                assert not field.get("readOnly"), f"{where}.{key}: output only, sent anyway"
            check(api, item, field, f"{where}.{key}", sent=sent)
    elif kind == "object" and "additionalProperties" in schema:
        assert isinstance(value, dict), where
        for key, item in value.items():
            check(api, item, schema["additionalProperties"], f"{where}[{key}]", sent=sent)
    elif kind == "object":
        assert isinstance(value, dict), where
    elif kind == "array":
        assert isinstance(value, list), f"{where}: {value!r} is not a list"
        for i, item in enumerate(value):
            check(api, item, schema.get("items", {}), f"{where}[{i}]", sent=sent)
    elif kind == "string":
        assert isinstance(value, str), (
            f"{where}: {value!r} must be a string ({schema.get('format')})"
        )
        if "enum" in schema:
            assert value in schema["enum"], f"{where}: {value!r} not in {schema['enum']}"
    elif kind == "integer":
        assert isinstance(value, int) and not isinstance(value, bool), f"{where}: {value!r}"
    elif kind == "number":
        assert isinstance(value, int | float) and not isinstance(value, bool), f"{where}: {value!r}"
    elif kind == "boolean":
        assert isinstance(value, bool), f"{where}: {value!r}"


def check_exchange(request: Request, reply: Reply) -> str:
    """Check one request and its answer; returns the method id."""
    api, method = api_of(request.path), method_of(request)
    for name in request.query:
        param = method.get("parameters", {}).get(name)
        assert param is not None and param["location"] == "query", (
            f"{method['id']}: query parameter {name!r} is not documented"
        )
    if request.body is not None:
        assert "request" in method, f"{method['id']}: takes no body, got {request.body!r}"
        check(api, request.body, method["request"], f"{method['id']} request", sent=True)
    if reply.status < 400:
        check(api, reply.body, method.get("response", {}), f"{method['id']} response", sent=False)
    else:
        error = reply.body["error"]
        assert isinstance(error["code"], int) and isinstance(error["message"], str)
        assert isinstance(error["status"], str)
    return method["id"]
