package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestBodiesAreNotKept reads every API body into a pooled buffer that is
// overwritten with '#' as soon as its handler returns: whatever the
// sandbox keeps of a request (the transaction, the journal's summary and
// masked body, the challenge, the collection the lookup links to) must be
// its own copy, or the later answers would show the '#'. Lookups of all
// kinds run from several goroutines at once, so buffers change hands
// while other requests are in flight.
func TestBodiesAreNotKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.journal = true })
	e.Web.PoisonBodies()
	const token = "bodies-team"
	cards := map[string]string{"frictionless": e.card("visa-frictionless-y"), "challenge": e.card("visa-challenge")}

	var wg sync.WaitGroup
	ids := make([][3]string, 8) // per goroutine: frictionless, challenge, collected
	for g := range ids {
		wg.Go(func() {
			ref := fmt.Sprintf("ORD-BODIES-%02d", g)
			for i, kind := range []string{"frictionless", "challenge"} {
				r := e.lookup(token, testkit.LookupBody(t, cards[kind], func(m map[string]any) {
					m["externalReferenceId"] = ref + "-" + kind
					m["merchantName"] = "Bodies Shop " + ref
				}))
				if r.Status != http.StatusOK {
					t.Errorf("%s lookup: HTTP %d\n%s", kind, r.Status, r.Raw)
					return
				}
				ids[g][i] = r.Str("threeDsServerTransId")
			}
			d := e.ddc(token, map[string]any{"card": map[string]any{"cardNumber": "4000000000009409"},
				"threeDSMethodNotificationURL": "https://merchant.example/3ds/method-notify/" + ref, "externalReferenceId": ref + "-ddc"})
			if d.Status != http.StatusOK {
				t.Errorf("ddc: HTTP %d\n%s", d.Status, d.Raw)
				return
			}
			l := e.lookup(token, testkit.LookupBody(t, "4000000000009409", func(m map[string]any) {
				m["ddcId"], m["threeDSCompInd"], m["externalReferenceId"] = d.Str("ddcId"), "U", ref+"-ddc"
			}))
			if l.Status != http.StatusOK {
				t.Errorf("linked lookup: HTTP %d\n%s", l.Status, l.Raw)
			}
			ids[g][2] = l.Str("threeDsServerTransId")
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for g, tx := range ids {
		ref := fmt.Sprintf("ORD-BODIES-%02d", g)
		for i, kind := range []string{"frictionless", "challenge", "ddc"} {
			if q := e.enquiry(token, map[string]string{"threeDsServerTransId": strings.ToUpper(tx[i])}); q.Status != http.StatusOK {
				t.Errorf("enquiry by id %s: HTTP %d\n%s", tx[i], q.Status, q.Raw)
			}
			q := e.enquiry(token, map[string]string{"externalReferenceId": ref + "-" + kind})
			if q.Status != http.StatusOK || q.Str("threeDsServerTransId") != tx[i] {
				t.Errorf("enquiry %s-%s: HTTP %d, want transaction %s\n%s", ref, kind, q.Status, tx[i], q.Raw)
			}
			a := e.call(http.MethodGet, "/admin/transactions/"+tx[i], token, nil)
			if a.Status != http.StatusOK || strings.Contains(a.Raw, "#") || !strings.Contains(a.Raw, ref+"-"+kind) {
				t.Errorf("admin transaction %s: HTTP %d, want its reference and no '#'\n%s", tx[i], a.Status, a.Raw)
			}
			if kind != "ddc" && !strings.Contains(a.Raw, "Bodies Shop "+ref) {
				t.Errorf("admin transaction %s: merchantName lost\n%s", tx[i], a.Raw)
			}
		}
		page := e.call(http.MethodGet, "/acs/hosted/"+tx[1], "", nil)
		if page.Status != http.StatusOK || strings.Contains(page.Raw, "##") || !strings.Contains(page.Raw, "Bodies Shop "+ref) {
			t.Errorf("hosted challenge of %s: HTTP %d, want the merchant's name and no '#'", tx[1], page.Status)
		}
		if c := e.call(http.MethodPost, "/challenge/"+tx[1], token, map[string]string{"action": "pass"}); c.Status != http.StatusOK {
			t.Errorf("complete challenge %s: HTTP %d\n%s", tx[1], c.Status, c.Raw)
		}
	}
}
