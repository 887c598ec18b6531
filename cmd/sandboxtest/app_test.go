package sandboxtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/sandboxtest"
)

// TestAppLookup: an app lookup made as an SDK makes it, to each kind of
// directory server key; on a challenge, what the SDK needs to speak to
// the ACS; and the headless action finishes the challenge.
func TestAppLookup(t *testing.T) {
	ctx := context.Background()
	sb := sandboxtest.Start(t)
	c := sb.NewClient()
	servers, err := c.DirectoryServers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]sandboxtest.DirectoryServer{}
	for _, ds := range servers {
		byID[ds.DirectoryServerID] = ds
	}
	for _, id := range []string{"A000000003", "F055545342", "F155545342"} {
		t.Run(id, func(t *testing.T) {
			sdk, err := sandboxtest.NewSDK()
			if err != nil {
				t.Fatal(err)
			}
			body, err := sdk.AppLookupBody("4000000000009102", byID[id])
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.AppLookup(ctx, sdk, body)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != "C" || res.SDKTransID != sdk.TransID || len(res.ExchangeKey) != 32 || !strings.HasSuffix(res.ACSURL, "/acs/sdk") ||
				res.ACSTransID == "" || res.ACSRenderingType == nil || res.ACSRenderingType.UITemplate != "01" {
				t.Fatalf("app lookup: %+v", res)
			}
			done, err := c.CompleteChallenge(ctx, res.ThreeDSServerTransID, sandboxtest.Pass)
			if err != nil || done.TransStatus != "Y" {
				t.Fatalf("headless pass: %+v, %v", done, err)
			}
			if q, err := c.Enquiry(ctx, res.ThreeDSServerTransID); err != nil || q.TransactionStatus != "Y" || q.ECI != "05" {
				t.Errorf("enquiry: %+v, %v", q, err)
			}
		})
	}
	sdk, _ := sandboxtest.NewSDK()
	body, _ := sdk.AppLookupBody("4000000000009003", byID["A000000003"])
	res, err := c.AppLookup(ctx, sdk, body)
	if err != nil || res.Status != "Y" || res.ExchangeKey != nil || res.ACSSignedContent != "" {
		t.Errorf("frictionless: %+v, %v", res, err)
	}
}
