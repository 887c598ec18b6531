package web

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// TestErrorCodeTable keeps the errorCode table of docs/errors.md equal to
// the one table that maps errorCodes to HTTP statuses.
func TestErrorCodeTable(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i, j := strings.Index(s, "<!-- error-codes:start -->"), strings.Index(s, "<!-- error-codes:end -->")
	if i < 0 || j < i {
		t.Fatal("docs/errors.md lacks the error-codes markers")
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Z0-9]{4})` \\| (\\d{3}) \\| (\\d{3}) \\|")
	documented := map[emv.ErrorCode]int{}
	for _, m := range row.FindAllStringSubmatch(s[i:j], -1) {
		status, _ := strconv.Atoi(m[2])
		documented[emv.ErrorCode(m[1])] = status
	}
	for code, status := range httpStatus {
		if got, ok := documented[code]; !ok || got != status {
			t.Errorf("docs/errors.md documents %s as HTTP %d, the code answers %d", code, got, status)
		}
	}
	for code := range documented {
		if _, ok := httpStatus[code]; !ok {
			t.Errorf("docs/errors.md documents %s, which the status table lacks", code)
		}
	}
}
