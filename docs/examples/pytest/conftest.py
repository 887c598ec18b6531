"""Fixtures of the example: the sandbox that threeds-sandbox exec started
(THREEDS_SANDBOX_URL), and for each test a bearer token of its own, so
that no two tests see each other's transactions, references or clock."""

import os
import uuid

import pytest
import requests


class Sandbox:
    """The sandbox's API and automation API, called with one bearer token."""

    def __init__(self, url, token):
        self.url = url.rstrip("/")
        self.token = token
        self.http = requests.Session()
        self.http.headers["Authorization"] = "Bearer " + token

    def call(self, method, path, **kwargs):
        """Sends a request under the base URL and returns the response."""
        kwargs.setdefault("timeout", 90)
        return self.http.request(method, self.url + path, **kwargs)

    def lookup_body(self, card, reference=None):
        """The sandbox's sample lookup for card, with a reference of its own."""
        body = self.call("GET", "/examples/lookup.json").json()
        body["card"]["cardNumber"] = card
        body["externalReferenceId"] = reference or "order-" + uuid.uuid4().hex[:12]
        return body

    def lookup(self, card, **changes):
        """Sends a lookup (section 4.1) and returns its answer."""
        body = self.lookup_body(card)
        body.update(changes)
        r = self.call("POST", "/authentication/brw", json=body)
        assert r.status_code == 200, r.text
        return r.json()

    def transaction(self, trans_id, wait=None, timeout="30s"):
        """One transaction with its events; wait="final" answers once it is final."""
        params = {"wait": wait, "timeout": timeout} if wait else None
        r = self.call("GET", "/admin/transactions/" + trans_id, params=params)
        assert r.status_code == 200, r.text
        return r.json()

    def transactions(self, **query):
        r = self.call("GET", "/admin/transactions", params=query)
        assert r.status_code == 200, r.text
        return r.json()["transactions"]

    def advance_clock(self, by):
        r = self.call("POST", "/admin/clock", json={"advance": by})
        assert r.status_code == 200, r.text
        return r.json()

    def reset(self):
        """Starts the token clean, as a new one would: transactions, clock,
        runtime scenarios and callback URL, in one call."""
        r = self.call("DELETE", "/admin/state")
        assert r.status_code == 204, r.text


def sent(transaction, event_type, field):
    """A field of the request the sandbox received in the transaction's
    first event of event_type, by its dotted path (browserInfo.userAgent)."""
    for event in transaction["events"]:
        if event["type"] == event_type and "request" in event:
            value = event["request"]
            for key in field.split("."):
                value = value[key]
            return value
    raise AssertionError(f"no {event_type} event with a request")


@pytest.fixture(scope="session")
def sandbox_url():
    url = os.environ.get("THREEDS_SANDBOX_URL")
    if not url:
        # Never a skip: a test run without its sandbox fails.
        pytest.fail("THREEDS_SANDBOX_URL is not set: run the tests under the sandbox, "
                    "threeds-sandbox exec -- python3 -m pytest")
    return url


@pytest.fixture
def sandbox(sandbox_url, request):
    """The sandbox with a fresh token for this test. A sandbox started with
    --tokens accepts only those: then the test uses THREEDS_SANDBOX_TOKEN
    and starts clean instead. Either way the token is left clean."""
    s = Sandbox(sandbox_url, f"pytest-{request.node.name[:40]}-{uuid.uuid4().hex[:8]}")
    if s.call("GET", "/admin/clock").status_code == 401:
        s = Sandbox(sandbox_url, os.environ["THREEDS_SANDBOX_TOKEN"])
        s.reset()
    yield s
    s.reset()
