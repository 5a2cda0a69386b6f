#!/usr/bin/env python3
"""A webhook receiver that verifies svc deliveries with nothing but Python's standard library.

Usage:
    python3 verify_receiver.py --log FILE [--port N] [--secret S ...] [--require both|svc|standard|any]
                               [--tolerance-seconds 300] [--max-seconds 120]

    --log FILE           append one JSON line per request:
                         {"webhook_id", "delivery_id", "event_type", "valid_svc", "valid_standard", "status", "body"}
    --port N             port on 127.0.0.1 (default 0: any free port)
    --secret S           a secret to accept, repeatable (during a rotation pass the old and the new one);
                         SVC_WEBHOOK_SECRETS (comma-separated) adds more. At least one is required.
    --require            which signatures must be valid for a 204 (default both: X-Svc-Signature and webhook-signature)
    --tolerance-seconds  reject a timestamp this many seconds or more away from now (default 300)
    --max-seconds        exit by itself after this long (default 120)

The first line on stdout is the port it listens on. Every POST is answered 204 when valid and 401 when
not; the log line is written before the answer is sent. It exits with 0 at --max-seconds or on SIGTERM.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import signal
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def timestamp_is_fresh(header, tolerance_seconds):
    if header is None or not (header.isascii() and header.isdigit()):
        return False
    return abs(time.time() - int(header)) < tolerance_seconds


def valid_svc(headers, body, secrets, tolerance_seconds):
    timestamp, signatures = headers.get("X-Svc-Timestamp"), headers.get("X-Svc-Signature")
    if signatures is None or not timestamp_is_fresh(timestamp, tolerance_seconds):
        return False
    message = timestamp.encode() + b"." + body
    expected = ["sha256=" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest() for secret in secrets]
    return any(hmac.compare_digest(offered.strip().encode(), candidate.encode()) for offered in signatures.split(",") for candidate in expected)


def valid_standard(headers, body, keys, tolerance_seconds):
    webhook_id, timestamp, signatures = headers.get("webhook-id"), headers.get("webhook-timestamp"), headers.get("webhook-signature")
    if webhook_id is None or signatures is None or not timestamp_is_fresh(timestamp, tolerance_seconds):
        return False
    message = f"{webhook_id}.{timestamp}.".encode() + body
    expected = ["v1," + base64.b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode() for key in keys]
    return any(hmac.compare_digest(offered.encode(), candidate.encode()) for offered in signatures.split() for candidate in expected)


def handler_for(options, secrets, standard_keys):
    class VerifyingHandler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            svc_ok = valid_svc(self.headers, body, secrets, options.tolerance_seconds)
            standard_ok = valid_standard(self.headers, body, standard_keys, options.tolerance_seconds)
            accepted = {"both": svc_ok and standard_ok, "svc": svc_ok, "standard": standard_ok, "any": svc_ok or standard_ok}[options.require]
            status = 204 if accepted else 401
            entry = {
                "webhook_id": self.headers.get("webhook-id"),
                "delivery_id": self.headers.get("X-Svc-Delivery"),
                "event_type": self.headers.get("X-Svc-Event"),
                "valid_svc": svc_ok,
                "valid_standard": standard_ok,
                "status": status,
                "body": body.decode("utf-8", errors="replace"),
            }
            with open(options.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(entry) + "\n")
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format, *args):
            pass

    return VerifyingHandler


def main():
    parser = argparse.ArgumentParser(description="Verifying webhook receiver for svc deliveries (see the module docstring).")
    parser.add_argument("--log", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--secret", action="append", default=[])
    parser.add_argument("--require", choices=["both", "svc", "standard", "any"], default="both")
    parser.add_argument("--tolerance-seconds", type=int, default=300)
    parser.add_argument("--max-seconds", type=float, default=120)
    options = parser.parse_args()
    secrets = options.secret + [s for s in os.environ.get("SVC_WEBHOOK_SECRETS", "").split(",") if s]
    if not secrets:
        parser.error("give at least one --secret or SVC_WEBHOOK_SECRETS")
    try:
        standard_keys = [base64.b64decode(secret.removeprefix("whsec_"), validate=True) for secret in secrets]
    except ValueError:
        parser.error("every secret must be whsec_ followed by base64")

    server = HTTPServer(("127.0.0.1", options.port), handler_for(options, secrets, standard_keys))
    server.timeout = 0.2
    print(server.server_address[1], flush=True)
    deadline = time.monotonic() + options.max_seconds
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    while not stopping and time.monotonic() < deadline:
        server.handle_request()
    server.server_close()


if __name__ == "__main__":
    main()
