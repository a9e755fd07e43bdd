"""Reads an OTLP/HTTP trace export request (protobuf) from stdin and prints it as JSON.

Parsed with OpenTelemetry's own message definitions (opentelemetry-proto), so what the bridge
sends is judged by the format's owners, not by the bridge's exporter. Ids are printed as hex.
"""

import json
import sys

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span


def attributes(items):
    return {item.key: MessageToDict(item.value) for item in items}


request = ExportTraceServiceRequest.FromString(sys.stdin.buffer.read())
spans = []
for resource_spans in request.resource_spans:
    resource = attributes(resource_spans.resource.attributes)
    for scope_spans in resource_spans.scope_spans:
        for span in scope_spans.spans:
            spans.append(
                {
                    "resource": resource,
                    "traceId": span.trace_id.hex(),
                    "spanId": span.span_id.hex(),
                    "parentSpanId": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": Span.SpanKind.Name(span.kind),
                    "attributes": attributes(span.attributes),
                }
            )
json.dump(spans, sys.stdout)
