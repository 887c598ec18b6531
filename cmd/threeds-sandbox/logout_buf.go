//go:build !without_logbuf

package main

import (
	"io"
	"log/slog"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/internal/logbuf"
)

// logOutput is the log's output on stdout: gathered under load (see
// logbuf), at most logInterval behind, a warning or an error at once with
// what came before it. wrap applies this to a handler; close writes the rest.
func logOutput(stdout io.Writer) (out io.Writer, wrap func(slog.Handler) slog.Handler, close func() error) {
	w := logbuf.New(stdout, logInterval, logBuffer)
	return w, func(h slog.Handler) slog.Handler { return logbuf.Urgent(h, w, slog.LevelWarn) }, w.Close
}
