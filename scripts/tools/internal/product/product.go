// Package product finds the sandbox these tools measure and picture: the
// module github.com/threeds-sandbox/threeds-sandbox, whose directory the
// tools module's replace directive names (the repository's root). The
// emulator binary is built there, with the product's own go.mod, and the
// docs' pictures are written there.
package product

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Module is the module path of the sandbox.
const Module = "github.com/threeds-sandbox/threeds-sandbox"

// Dir returns the directory of the sandbox's module, as go list reads it
// from the tools module (run within scripts/tools).
func Dir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", Module).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s (run within scripts/tools): %w", Module, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("go list -m %s: the module has no directory", Module)
	}
	return dir, nil
}
