package memstore_test

import (
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/storetest"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
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

// TestRuntimeContract runs the emulator.RuntimeScenarios contract on the
// in-memory runtime scenarios (one process: both "replicas" are the same).
func TestRuntimeContract(t *testing.T) {
	storetest.RunRuntime(t, func(t *testing.T, lim storetest.RuntimeLimits) (a, b emulator.RuntimeScenarios) {
		rt := emulator.NewMemoryRuntime(&scenarios.Runtime{MaxScenarios: lim.MaxScenarios, MaxNamespaces: lim.MaxNamespaces, MaxBytes: lim.MaxBytes, MaxTotalBytes: lim.MaxTotalBytes})
		return rt, rt
	})
}
