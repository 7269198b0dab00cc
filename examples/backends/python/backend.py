"""A ChatBot webhook backend on Python's standard library, checked against the webhook contract's
JSON Schema (request.json, response.json from pulumi-chatbot) with `jsonschema`: it refuses a
request that is not ChatBot's (400) and, before sending, an answer ChatBot would refuse (500).

Settings, from the environment:
  CHATBOT_SCHEMA_DIR  the folder holding request.json and response.json (required)
  PORT                the port on 127.0.0.1 (default 8080; 0 picks a free one)
  WEBHOOK_TOKEN       the connection's token: the verification request and every call must carry it
  WEBHOOK_TOKENS      during a rotation, the tokens accepted as a JSON list, e.g. ["<next>", "<current>"]
                      (JSON, so a token may hold any character, commas too); with WEBHOOK_TOKEN, both count
  BAD_ANSWER=1        answer with a message over ChatBot's 1024 characters, to see it refused
"""

import hmac
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

SCHEMAS = Path(os.environ["CHATBOT_SCHEMA_DIR"])
REQUEST = Draft202012Validator(json.loads((SCHEMAS / "request.json").read_text()))
RESPONSE = Draft202012Validator(json.loads((SCHEMAS / "response.json").read_text()))


def accepted_tokens():
    """Every token a call may carry (None: none is checked), from WEBHOOK_TOKEN and WEBHOOK_TOKENS."""
    tokens = [os.environ["WEBHOOK_TOKEN"]] if "WEBHOOK_TOKEN" in os.environ else []
    if "WEBHOOK_TOKENS" in os.environ:
        try:
            listed = json.loads(os.environ["WEBHOOK_TOKENS"])
        except ValueError:
            listed = None
        if not isinstance(listed, list) or not listed or not all(isinstance(t, str) and t for t in listed):
            # Named, never shown: the value is a secret.
            sys.exit('WEBHOOK_TOKENS: must be a JSON list of non-empty strings, e.g. ["<next>", "<current>"]')
        tokens += listed
    return [t.encode() for t in tokens] or None


TOKENS = accepted_tokens()
BAD_ANSWER = os.environ.get("BAD_ANSWER") == "1"


def problem(validator, value):
    """The validator's most relevant failure as one line, or None when `value` is valid."""
    error = best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/" + "/".join(str(p) for p in error.absolute_path)
    # Messages start with the failing value: a long one is named, not quoted, and the limit added.
    value = repr(error.instance)
    message = error.message.replace(value, "the value", 1) if len(value) > 40 else error.message
    if isinstance(error.validator_value, (int, float, str)) and not isinstance(error.validator_value, bool):
        message += f" ({error.validator}: {error.validator_value})"
    return f"{where}: {message}"


def answer(call):
    """What the bot says: replace with your own. BAD_ANSWER shows the check refusing it."""
    message = "x" * 1025 if BAD_ANSWER else f"Hello, {call['userId']}"
    return {"responses": [{"type": "text", "message": message}], "attributes": {"greeted": "yes"}}


class Handler(BaseHTTPRequestHandler):
    def token_ok(self, query):
        given = query.get("token", [""])[0].encode()
        # Compared with every accepted token (a list, not `any` over a generator: none skipped),
        # each in constant time, so which one matched does not show in the time taken.
        return TOKENS is None or any([hmac.compare_digest(given, token) for token in TOKENS])

    def send(self, status, body, content_type="application/json"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        query = parse_qs(urlparse(self.path).query)
        if "challenge" not in query:
            return self.not_allowed()
        # ChatBot's verification request: the challenge back as the body, when the token is right.
        if not self.token_ok(query):
            return self.send(401, {"error": "unauthorized"})
        self.send(200, query["challenge"][0], "text/plain; charset=utf-8")

    def do_POST(self):
        if not self.token_ok(parse_qs(urlparse(self.path).query)):
            return self.send(401, {"error": "unauthorized"})
        try:
            call = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        except ValueError:
            return self.send(400, {"error": "request body is not valid JSON"})
        refused = problem(REQUEST, call)
        if refused:
            return self.send(400, {"error": f"not ChatBot's request (request.json): {refused}"})
        body = answer(call)
        refused = problem(RESPONSE, body)
        if refused:
            # ChatBot would fail the call anyway; a 500 says whose fault it is, here and in its log.
            message = f"answer refused by response.json: {refused}"
            print(message, file=sys.stderr, flush=True)
            return self.send(500, {"error": message})
        self.send(200, body)

    def not_allowed(self):
        self.send(405, {"error": "method not allowed: use POST"})

    do_PUT = do_PATCH = do_DELETE = not_allowed

    def log_message(self, format, *args):
        pass  # one line per call is noise here; problems are printed above


server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8080"))), Handler)
print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
