//go:build without_fastlog

package sandbox

import (
	"io"
	"log/slog"
)

// textHandler is the handler of --log-format text.
func textHandler(out io.Writer, level slog.Level) slog.Handler {
	return slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})
}
