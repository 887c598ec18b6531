//go:build full

package e2e

import (
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// Keys of a rotation: the new pair, and a pair no other replica knows.
const (
	rotatedHashKey  = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
	rotatedBlockKey = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a7988"
	strangeHashKey  = "5555555555555555555555555555555555555555555555555555555555555555"
	strangeBlockKey = "6666666666666666666666666666666666666666666666666666666666666666"
)

// keysMismatch reads the gauge threeds_state_keys_mismatch of p.
func keysMismatch(t *testing.T, p *program) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^threeds_state_keys_mismatch (\S+)`).FindStringSubmatch(testkit.Call(t, http.MethodGet, p.URL+"/metrics", "", nil).Raw)
	if m == nil {
		return "(absent)"
	}
	return m[1]
}

// keysWarning is what a replica logs when its keys are not the others'.
const keysWarning = "match neither the current nor a previous key"

// TestKeyRotation: a replica restarted with a new key pair and the old
// one in --state-previous-keys keeps the console sessions and the
// challenge pages made under the old keys; it and a replica still on the
// old keys agree (no warning, the gauge at 0), while a replica started
// with unrelated keys says so in its log and sets
// threeds_state_keys_mismatch to 1.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	srv := testkit.StartRedis(t, testkit.RedisOptions{})
	old := startReplica(t, srv)
	browser := consoleClient(t, old)
	ch := old.lookup(t, testkit.LookupBody(t, challengeCard, nil))
	creq := creqOf(t, ch)
	status, page := postForm(t, old.URL+"/acs/challenge", url.Values{"creq": {creq}})
	state := hiddenState.FindStringSubmatch(page)
	if status != http.StatusOK || state == nil {
		t.Fatalf("challenge page: HTTP %d\n%s", status, page)
	}
	if got := keysMismatch(t, old); got != "0" {
		t.Errorf("threeds_state_keys_mismatch of the first replica = %s, want 0", got)
	}
	if err := old.stop(); err != nil {
		t.Fatal(err)
	}

	rotated := startProgram(t, "--store", srv.URL, "--store-timeout", replicaStoreTimeout, "--state-hash-key", rotatedHashKey,
		"--state-block-key", rotatedBlockKey, "--state-previous-keys", testHashKey+":"+testBlockKey)
	oldURL, _ := url.Parse(old.URL)
	newURL, _ := url.Parse(rotated.URL)
	jar := browser.Jar.(*cookiejar.Jar)
	jar.SetCookies(newURL, jar.Cookies(oldURL))
	resp, err := browser.Get(rotated.URL + "/console/transactions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the console session after the rotation: HTTP %d (%s), want 200", resp.StatusCode, resp.Header.Get("Location"))
	}
	status, page = postForm(t, rotated.URL+"/acs/decision", url.Values{"state": {html.UnescapeString(state[1])}, "action": {"otp"}, "otp": {"1234"}})
	if status != http.StatusOK || hiddenCRes.FindStringSubmatch(page) == nil {
		t.Errorf("a challenge page of the old keys after the rotation: HTTP %d\n%.600s", status, page)
	}
	if got := keysMismatch(t, rotated); got != "0" || strings.Contains(rotated.out.String(), keysWarning) {
		t.Errorf("the rotated replica: threeds_state_keys_mismatch %s, want 0 and no warning:\n%s", got, rotated.tail(20))
	}

	// A replica still on the old keys alone knows the rotation: its
	// current key is the rotated replica's previous one.
	older := startReplica(t, srv)
	if got := keysMismatch(t, older); got != "0" || strings.Contains(older.out.String(), keysWarning) {
		t.Errorf("a replica on the keys before the rotation: threeds_state_keys_mismatch %s, want 0 and no warning:\n%s", got, older.tail(20))
	}

	stranger := startProgram(t, "--store", srv.URL, "--store-timeout", replicaStoreTimeout, "--state-hash-key", strangeHashKey, "--state-block-key", strangeBlockKey)
	if got := keysMismatch(t, stranger); got != "1" {
		t.Errorf("a replica with unrelated keys: threeds_state_keys_mismatch %s, want 1", got)
	}
	warned := regexp.MustCompile(`level=WARN msg=".*state keys.*` + keysWarning)
	if !warned.MatchString(stranger.out.String()) {
		t.Errorf("a replica with unrelated keys does not warn:\n%s", stranger.tail(20))
	}
	if got := keysMismatch(t, rotated); got != "0" {
		t.Errorf("the rotated replica after a stranger came: threeds_state_keys_mismatch %s, want 0", got)
	}
}
