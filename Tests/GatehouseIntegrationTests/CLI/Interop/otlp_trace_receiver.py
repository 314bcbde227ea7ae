#!/usr/bin/env python3
"""An OTLP/HTTP trace receiver on loopback, built on OpenTelemetry's own protobuf definitions (PyPI's
opentelemetry-proto), for the trace export tests (issue 42 item 7).

    otlp_trace_receiver.py OUT.jsonl

It listens on a free port of 127.0.0.1, prints "listening on PORT" once it does, and answers
`POST /v1/traces` (Content-Type application/x-protobuf, as the OTLP/HTTP specification says) with an empty
ExportTraceServiceResponse. Each span of each request is appended to OUT.jsonl as one JSON line:
trace_id, span_id, parent_span_id (lowercase hex, "" for a root span), name, kind (the proto's enum name, e.g.
SPAN_KIND_SERVER), attributes (key to value), resource (the resource's attributes) and status. A body that does not
decode is answered 400 and written as {"error": ...}, so a test sees it rather than a silence.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Lock

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

OUT = sys.argv[1]
WRITING = Lock()


def value(any_value):
    """An AnyValue as plain JSON."""
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def attributes(pairs):
    return {kv.key: value(kv.value) for kv in pairs}


def lines(request):
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": Span.SpanKind.Name(span.kind),
                    "attributes": attributes(span.attributes),
                    "resource": resource,
                    "status": Status.StatusCode.Name(span.status.code),
                    "scope": scope_spans.scope.name,
                }


def append(records):
    with WRITING, open(OUT, "a", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, sort_keys=True) + "\n")


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != "/v1/traces":
            return self.answer(404, b"")
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/x-protobuf":
            append([{"error": "content type %r" % self.headers.get("Content-Type")}])
            return self.answer(415, b"")
        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except DecodeError as error:
            append([{"error": "undecodable ExportTraceServiceRequest: %s" % error}])
            return self.answer(400, b"")
        append(list(lines(request)))
        self.answer(200, ExportTraceServiceResponse().SerializeToString())

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    print("listening on %d" % server.server_address[1], flush=True)
    server.serve_forever()
