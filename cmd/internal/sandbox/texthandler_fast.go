//go:build !without_fastlog

package sandbox

import (
	"io"
	"log/slog"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/fastlog"
)

// textHandler is the handler of --log-format text.
func textHandler(out io.Writer, level slog.Level) slog.Handler { return fastlog.NewText(out, level) }
