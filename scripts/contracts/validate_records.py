"""Validates Kafka records the bridge wrote against its published contracts, with tools nobody
on the project wrote: Python's jsonschema (JSON Schema 2020-12 and draft-07, formats checked) and
the CloudEvents SDK's Kafka binding.

Usage: python validate_records.py <repository root> <records.json>

records.json is a list of {"topic": "events" | "deadLetter", "key": str | null,
"headers": {name: str}, "value": str | null}. Prints one JSON object: the number of records
checked by kind and type, and every problem found; exits 1 when there is a problem.
"""

import json
import pathlib
import sys
from collections import Counter

from cloudevents.core.bindings.kafka import KafkaMessage, from_binary_event
from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker

FORMATS = FormatChecker()


def load(path):
    return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))


def errors_of(validator_class, schema, instance):
    validator = validator_class(schema, format_checker=FORMATS)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
            for e in validator.iter_errors(instance)]


def check_schema_files(root, problems):
    """Every schema is a valid 2020-12 schema and accepts its own examples."""
    schemas = {}
    for path in sorted((root / "schemas").glob("*/*.schema.json")):
        schema = load(path)
        Draft202012Validator.check_schema(schema)
        for example in schema.get("examples", []):
            for error in errors_of(Draft202012Validator, schema, example):
                problems.append(f"{path.name} example: {error}")
        schemas[schema["$id"]] = schema
    return schemas


def asyncapi_messages(root):
    document = load(root / "schemas" / "asyncapi.json")
    return {m["name"]: m for m in document["components"]["messages"].values()}


def check_event(record, schemas, messages, problems):
    headers = record["headers"]
    where = f"event {headers.get('ce_id')}"
    event = from_binary_event(KafkaMessage(
        headers={k: v.encode() for k, v in headers.items()},
        key=record["key"],
        value=record["value"].encode(),
    ))
    schema = schemas.get(event.get_dataschema())
    if schema is None:
        problems.append(f"{where}: no schema has the $id {event.get_dataschema()!r}")
        return event.get_type()
    if schema["title"] != event.get_type():
        problems.append(f"{where}: ce_dataschema names {schema['title']}, not {event.get_type()}")
    for error in errors_of(Draft202012Validator, schema, event.get_data()):
        problems.append(f"{where} data: {error}")
    check_headers_and_key(record, messages[event.get_type()], where, problems)
    return event.get_type()


def check_headers_and_key(record, message, where, problems):
    for error in errors_of(Draft7Validator, message["headers"], record["headers"]):
        problems.append(f"{where} headers: {error}")
    key_schema = message["bindings"]["kafka"]["key"]
    for error in errors_of(Draft7Validator, key_schema, record["key"]):
        problems.append(f"{where} key: {error}")


def main(root, records_file):
    root = pathlib.Path(root)
    problems = []
    schemas = check_schema_files(root, problems)
    messages = asyncapi_messages(root)
    checked = Counter()
    for record in load(records_file):
        if record["topic"] == "events":
            checked[check_event(record, schemas, messages, problems)] += 1
        else:
            where = f"dead letter {record['headers'].get('dlq-source-offset')}"
            check_headers_and_key(record, messages["dead-letter"], where, problems)
            checked["dead-letter"] += 1
    print(json.dumps({"schemas": len(schemas), "checked": checked, "problems": problems}))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
