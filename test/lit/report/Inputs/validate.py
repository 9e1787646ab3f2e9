"""Validates JSON documents against docs/report-schema.json with the subset
of JSON Schema that file uses (type, const, enum, required, properties,
additionalProperties, items, minimum, local $ref), so that the shipped
schema is tested without the jsonschema package.

  python3 validate.py SCHEMA.json REPORT.json...
"""
import json
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "null": type(None)}


def is_type(value, name):
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def validate(value, schema, root, where, errors):
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return validate(value, target, root, where, errors)
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(is_type(value, n) for n in names):
            errors.append("%s: %r is not of type %s" % (where, value, names))
            return
    if "const" in schema and value != schema["const"]:
        errors.append("%s: %r is not %r" % (where, value, schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r is not one of %s" % (where, value, schema["enum"]))
    if "minimum" in schema and is_type(value, "integer") and value < schema["minimum"]:
        errors.append("%s: %r is below %r" % (where, value, schema["minimum"]))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: missing %r" % (where, key))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, v in value.items():
            if key in props:
                validate(v, props[key], root, "%s.%s" % (where, key), errors)
            elif extra is False:
                errors.append("%s: unexpected field %r" % (where, key))
            elif isinstance(extra, dict):
                validate(v, extra, root, "%s.%s" % (where, key), errors)
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            validate(v, schema["items"], root, "%s[%d]" % (where, i), errors)


schema = json.load(open(sys.argv[1]))
failed = False
for path in sys.argv[2:]:
    errors = []
    validate(json.load(open(path)), schema, schema, path, errors)
    for e in errors:
        print("invalid: " + e)
    failed |= bool(errors)
    if not errors:
        print("valid: " + path)
sys.exit(1 if failed else 0)
