package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one thing wrong with the scenario files, located by file and
// line. Line is 0 when the problem concerns a whole file, and File is empty
// when it concerns the load options.
type Problem struct {
	File   string
	Line   int
	Reason string
}

// String formats the problem as "file:line: reason".
func (p Problem) String() string {
	switch {
	case p.File == "":
		return p.Reason
	case p.Line == 0:
		return p.File + ": " + p.Reason
	default:
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Reason)
	}
}

// LoadError lists every problem found in the scenario files, so that a
// tester can fix them all in one go.
type LoadError struct {
	Problems []Problem
}

// Error prints one "file:line: reason" per line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// String formats the position as "file:line".
func (p Position) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// loadError wraps problems in a *LoadError, or returns nil when there are
// none. Problems are grouped by file, in the order the files first appear,
// and sorted by line within a file.
func loadError(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	order := map[string]int{}
	for _, p := range problems {
		if _, ok := order[p.File]; !ok {
			order[p.File] = len(order)
		}
	}
	sorted := slices.Clone(problems)
	slices.SortStableFunc(sorted, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(order[a.File], order[b.File]), cmp.Compare(a.Line, b.Line))
	})
	return &LoadError{Problems: sorted}
}
