//go:build without_logbuf

package main

import (
	"io"
	"log/slog"
)

// logOutput is the log's output: stdout, a line per write.
func logOutput(stdout io.Writer) (out io.Writer, wrap func(slog.Handler) slog.Handler, close func() error) {
	return stdout, func(h slog.Handler) slog.Handler { return h }, func() error { return nil }
}
