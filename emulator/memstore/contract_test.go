package memstore_test

import (
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/storetest"
)

// TestContract runs the emulator.Store contract, as the Redis store does.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, maxAge time.Duration) emulator.Store {
		s, err := memstore.New(memstore.Options{MaxAge: maxAge})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
