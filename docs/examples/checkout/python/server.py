"""The merchant's server of the example checkout, in Python 3 (the standard
library only). It signs the device data capture's JWT, gets an OAuth token,
sends the lookup, receives the CRes and the signed result callback, and asks
the enquiry for the result.

    THREEDS_SANDBOX_URL=http://localhost:8080 python3 server.py

Settings (environment): THREEDS_SANDBOX_URL (the sandbox's base URL),
CHECKOUT_CLIENT_ID and CHECKOUT_CLIENT_SECRET (the merchant's OAuth client,
and the capture JWT's iss and key), PORT (3000).
"""

import base64
import hashlib
import hmac
import html
import json
import os
import pathlib
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PUBLIC = pathlib.Path(__file__).resolve().parent.parent / "public"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign_jwt(claims, key):
    """A compact JWS with HS256."""
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64url(json.dumps(claims).encode())
    sig = hmac.new(key.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64url(sig)}"


def verify_signature(secret, header, body):
    """Checks X-3DS-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">,
    at most 5 minutes old."""
    parts = dict(p.split("=", 1) for p in (header or "").split(",") if "=" in p)
    try:
        t = int(parts.get("t", ""))
    except ValueError:
        return False
    if abs(time.time() - t) > 300 or secret is None:
        return False
    want = hmac.new(secret.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(want, parts.get("v1", ""))


class Checkout:
    """The merchant's side: its credentials, its token and what it heard."""

    def __init__(self, sandbox_url, client_id, client_secret):
        self.sandbox = sandbox_url.rstrip("/")
        self.client_id, self.client_secret = client_id, client_secret
        self.public_url = ""
        self.token_endpoint = None
        self.token, self.token_expires = None, 0.0
        self.signing_secret = None
        self.lock = threading.Lock()
        self.captures, self.cres, self.callbacks = {}, {}, {}

    def access_token(self):
        """An OAuth access token, kept until a minute before it expires, from
        the token endpoint the OpenID Connect discovery document names."""
        with self.lock:
            if self.token and self.token_expires > time.time() + 60:
                return self.token
            if not self.token_endpoint:
                with urllib.request.urlopen(self.sandbox + "/.well-known/openid-configuration", timeout=30) as r:
                    self.token_endpoint = json.load(r)["token_endpoint"]
            basic = base64.b64encode(
                f"{urllib.parse.quote(self.client_id)}:{urllib.parse.quote(self.client_secret)}".encode()).decode()
            req = urllib.request.Request(self.token_endpoint, data=b"grant_type=client_credentials",
                                         headers={"Authorization": "Basic " + basic,
                                                  "Content-Type": "application/x-www-form-urlencoded"})
            with urllib.request.urlopen(req, timeout=30) as r:
                t = json.load(r)
            self.token, self.token_expires = t["access_token"], time.time() + t["expires_in"]
            return self.token

    def call(self, method, path, body=None):
        """A JSON request to the sandbox's API with the token: (status, answer)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.sandbox + path, data=data, method=method,
                                     headers={"Authorization": "Bearer " + self.access_token(),
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=90) as r:
                raw, status = r.read(), r.status
        except urllib.error.HTTPError as e:
            raw, status = e.read(), e.code
        return status, json.loads(raw) if raw else None

    def register(self):
        """Tells the sandbox where to send the results; reads the secret that signs them."""
        status, answer = self.call("PUT", "/admin/callback", {"url": self.public_url + "/3ds/result-callback"})
        if status != 200:
            raise RuntimeError(f"register the callback: HTTP {status} {answer}")
        _, answer = self.call("GET", "/admin/callback")
        self.signing_secret = answer["signingSecret"]

    def capture(self, card, order):
        ddc_id = str(uuid.uuid4())
        now = int(time.time())
        jwt = sign_jwt({"iss": self.client_id, "jti": str(uuid.uuid4()), "iat": now, "exp": now + 600,
                        "OrgUnitId": self.client_id, "ReferenceId": ddc_id,
                        "Payload": {"OrderDetails": {"OrderNumber": order, "Amount": "4999", "CurrencyCode": "978"}}},
                       self.client_secret)
        return {"ddcId": ddc_id, "jwt": jwt, "bin": card, "collectUrl": self.sandbox + "/V2/ddcCollect",
                "callbackUrl": self.public_url + "/3ds/ddc-callback"}

    def lookup(self, req, accept):
        browser = dict(req["browserInfo"], acceptHeader=accept or "text/html", ip="127.0.0.1")
        return self.call("POST", "/authentication/brw", {
            "externalReferenceId": req["order"], "ddcId": req["ddcId"], "threeDsRequestorAuthInd": "01",
            "browserInfo": browser, "notificationUrl": self.public_url + "/3ds/notify", "challengeWindowSize": 2,
            "acquirerCode": "EXAMPLE-ACQ", "acquirerBin": "412345", "merchantCode": "EXAMPLE-SHOP",
            "deviceChannel": 2, "messageCategory": "01", "messageVersion": "2.2.0",
            "card": {"cardNumber": req["card"]}, "merchantName": "Example Shop",
            "purchase": {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
                         "amount": 49.99, "currencyCode": "EUR"},
        })

    def order(self, trans_id):
        status, answer = self.call("POST", "/enquiry/", {"threeDsServerTransId": trans_id})
        if status != 200:
            return status, {"error": answer.get("error"), "errorCode": answer.get("errorCode")}
        return 200, dict(answer, cres=self.cres.get(trans_id), callback=self.callbacks.get(trans_id))


def make_handler(checkout):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, kind, body):
            body = body if isinstance(body, bytes) else body.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def json(self, status, value):
            self.send(status, "application/json", json.dumps(value))

        def body(self):
            return self.rfile.read(min(int(self.headers.get("Content-Length") or 0), 1 << 20))

        def do_GET(self):
            path = urllib.parse.urlsplit(self.path).path
            files = {"/": ("index.html", "text/html; charset=utf-8"), "/checkout.js": ("checkout.js", "text/javascript")}
            if path in files:
                name, kind = files[path]
                self.send(200, kind, (PUBLIC / name).read_bytes())
            elif path.startswith("/api/orders/"):
                self.json(*checkout.order(urllib.parse.unquote(path[len("/api/orders/"):])))
            else:
                self.send(404, "text/plain", "not found")

        def do_POST(self):
            path, body = urllib.parse.urlsplit(self.path).path, self.body()
            if path == "/api/capture":
                req = json.loads(body)
                self.json(200, checkout.capture(req["card"], req["order"]))
            elif path == "/3ds/ddc-callback":
                form = dict(urllib.parse.parse_qsl(body.decode()))
                checkout.captures[form.get("ddcId")] = form
                self.send(200, "text/html; charset=utf-8", "<!DOCTYPE html><title>capture noted</title><p>capture noted</p>")
            elif path == "/api/pay":
                status, answer = checkout.lookup(json.loads(body), self.headers.get("Accept"))
                self.json(status, answer if status == 200 else {"error": answer.get("error"), "errorCode": answer.get("errorCode")})
            elif path == "/3ds/notify":
                form = dict(urllib.parse.parse_qsl(body.decode()))
                raw = form.get("cres", "")
                cres = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)) or b"{}")
                checkout.cres[cres.get("threeDSServerTransID")] = cres
                msg = json.dumps({"type": "example-shop:cres", "threeDSServerTransID": cres.get("threeDSServerTransID"),
                                  "transStatus": cres.get("transStatus")}).replace("<", "\\u003c")
                self.send(200, "text/html; charset=utf-8",
                          f"<!DOCTYPE html><title>challenge done</title><p>Challenge done: {html.escape(str(cres.get('transStatus')))}</p>"
                          f"<script>parent.postMessage({msg}, location.origin);</script>")
            elif path == "/3ds/result-callback":
                signature = self.headers.get("X-3DS-Signature")
                ok = verify_signature(checkout.signing_secret, signature, body)
                if not ok:  # the secret may have changed (a key rotation): read it again, once
                    checkout.register()
                    ok = verify_signature(checkout.signing_secret, signature, body)
                if not ok:
                    self.send(401, "text/plain", "bad signature")
                    return
                result = json.loads(body)
                checkout.callbacks[result["threeDsServerTransId"]] = {
                    "verified": True, "transactionStatus": result.get("transactionStatus"),
                    "attempt": int(self.headers.get("X-3DS-Attempt") or 0)}
                self.send_response(204)
                self.end_headers()
            else:
                self.send(404, "text/plain", "not found")

    return Handler


def start(sandbox_url, client_id, client_secret, port=0, host="127.0.0.1"):
    """Serves the checkout in a thread, registers the result callback, and
    returns the server (its URL in server.url)."""
    checkout = Checkout(sandbox_url, client_id, client_secret)
    server = ThreadingHTTPServer((host, port), make_handler(checkout))
    checkout.public_url = server.url = f"http://{host}:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    checkout.register()
    return server


if __name__ == "__main__":
    srv = start(os.environ.get("THREEDS_SANDBOX_URL", "http://localhost:8080"),
                os.environ.get("CHECKOUT_CLIENT_ID", "example-shop"),
                os.environ.get("CHECKOUT_CLIENT_SECRET", "example-shop-secret-0123456789"),
                port=int(os.environ.get("PORT", "3000")))
    print("Example Shop at " + srv.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        srv.shutdown()
