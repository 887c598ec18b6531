"""The automation API from pytest: wait for the final result, read back
what was sent, move the clock to reach a timeout, start clean. Each test
has a token, and so a namespace, of its own (the sandbox fixture)."""

from conftest import sent

CHALLENGE = "4000000000009102"  # Visa challenge: OTP 1234 passes
AUTO_PASS = "4000000000009110"  # Visa challenge that passes by itself after 1s
FRICTIONLESS = "4000000000009003"  # Visa frictionless Y


def test_frictionless_lookup_and_enquiry(sandbox):
    answer = sandbox.lookup(FRICTIONLESS)
    assert answer["status"] == "Y" and answer["eci"] == "05"
    r = sandbox.call("POST", "/enquiry/", json={"threeDsServerTransId": answer["threeDsServerTransId"]})
    assert r.status_code == 200 and r.json()["transactionStatus"] == "Y"


def test_wait_for_the_final_result(sandbox):
    answer = sandbox.lookup(AUTO_PASS)
    assert answer["status"] == "C"
    tx = sandbox.transaction(answer["threeDsServerTransId"], wait="final")
    assert tx["final"] is True and tx["status"] == "Y"
    assert "automaticDecision" in [e["type"] for e in tx["events"]]


def test_headless_challenge_with_a_wrong_code_first(sandbox):
    trans_id = sandbox.lookup(CHALLENGE)["threeDsServerTransId"]
    wrong = sandbox.call("POST", f"/challenge/{trans_id}", json={"action": "otp", "otp": "9999"}).json()
    assert wrong["final"] is False
    right = sandbox.call("POST", f"/challenge/{trans_id}", json={"action": "otp", "otp": "1234"}).json()
    assert right["final"] is True and right["transStatus"] == "Y"
    events = [e["type"] for e in sandbox.transaction(trans_id)["events"]]
    assert events.count("otpAttempt") == 1 and "cres" in events


def test_read_back_what_was_sent(sandbox):
    agent = "Mozilla/5.0 (pytest example)"
    body = sandbox.lookup_body(FRICTIONLESS)
    body["browserInfo"]["userAgent"] = agent
    r = sandbox.call("POST", "/authentication/brw", json=body)
    tx = sandbox.transaction(r.json()["threeDsServerTransId"])
    assert sent(tx, "lookup", "browserInfo.userAgent") == agent
    assert sent(tx, "lookup", "card.cardNumber") == "400000******9003"  # masked as kept
    [listed] = sandbox.transactions(externalReferenceId=body["externalReferenceId"])
    assert listed["cardLast4"] == "9003" and listed["status"] == "Y"


def test_move_the_clock_to_reach_a_timeout(sandbox):
    trans_id = sandbox.lookup(CHALLENGE)["threeDsServerTransId"]
    sandbox.advance_clock("11m")  # past the 10 minutes a challenge waits for its first CReq
    tx = sandbox.transaction(trans_id, wait="final")
    assert (tx["status"], tx["statusReason"], tx["challengeCancel"]) == ("N", "14", "05")


def test_start_clean(sandbox):
    trans_id = sandbox.lookup(FRICTIONLESS)["threeDsServerTransId"]
    sandbox.advance_clock("1h")
    assert len(sandbox.transactions()) == 1
    sandbox.reset()
    assert sandbox.transactions() == []
    r = sandbox.call("POST", "/enquiry/", json={"threeDsServerTransId": trans_id})
    assert r.status_code == 404 and r.json()["errorCode"] == "TX01"
    assert sandbox.call("GET", "/admin/clock").json()["offsetSeconds"] == 0


def test_tokens_do_not_see_each_other(sandbox, sandbox_url):
    from conftest import Sandbox

    trans_id = sandbox.lookup(FRICTIONLESS)["threeDsServerTransId"]
    other = Sandbox(sandbox_url, sandbox.token + "-other")
    # 404 for another token; 401 on a sandbox whose --tokens do not name it.
    assert other.call("GET", "/admin/transactions/" + trans_id).status_code in (401, 404)
