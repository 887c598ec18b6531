package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Source holds the active catalogue and replaces it when the scenario files
// change. Current is lock-free; Reload and Watch may run concurrently with
// it. A Source is safe for concurrent use.
type Source struct {
	opts LoadOptions
	cur  atomic.Pointer[Catalogue]

	mu    sync.Mutex // serialises reloads and guards stamp
	stamp string     // fingerprint of the user files at the last reload
}

// NewSource loads the catalogue once with opts and returns a Source
// serving it. It returns the *LoadError of an invalid set.
func NewSource(opts LoadOptions) (*Source, error) {
	s := &Source{opts: opts}
	if err := s.Reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// Current returns the active catalogue. It never blocks and never returns
// nil for a Source made by NewSource.
func (s *Source) Current() *Catalogue {
	return s.cur.Load()
}

// Reload loads the scenario files again. A valid set replaces the active
// catalogue atomically: requests see either the old or the new set, never
// a mix. An invalid set is refused with its *LoadError and the old
// catalogue stays active.
func (s *Source) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stamp = fingerprint(s.opts.Paths)
	c, err := Load(s.opts)
	if err != nil {
		return err
	}
	s.cur.Store(c)
	return nil
}

// Watch polls the user files and directories every interval until ctx is
// done, and reloads when one changed: a file's size or modification time,
// or the set of *.yaml and *.yml files of a directory. It calls report
// with the result of each reload: nil when the new set is active, else the
// error that kept the old one. Watch blocks; run it in its own goroutine.
// It reads only the file system's metadata between changes.
func (s *Source) Watch(ctx context.Context, interval time.Duration, report func(err error)) {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		changed := fingerprint(s.opts.Paths) != s.stamp
		s.mu.Unlock()
		if !changed {
			continue
		}
		err := s.Reload()
		if report != nil {
			report(err)
		}
	}
}

// fingerprint describes the state of the user files: for each path, its
// kind, size and modification time, and for a directory those of each
// scenario file in it. Two equal fingerprints mean nothing to reload.
func fingerprint(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(&b, "%s:missing;", p)
			continue
		}
		if !info.IsDir() {
			fmt.Fprintf(&b, "%s:%d:%d;", p, info.Size(), info.ModTime().UnixNano())
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			fmt.Fprintf(&b, "%s:unreadable;", p)
			continue
		}
		var names []string
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
				names = append(names, e.Name())
			}
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "%s:dir;", p)
		for _, n := range names {
			full := filepath.Join(p, n)
			if fi, err := os.Stat(full); err == nil {
				fmt.Fprintf(&b, "%s:%d:%d;", full, fi.Size(), fi.ModTime().UnixNano())
			} else {
				fmt.Fprintf(&b, "%s:missing;", full)
			}
		}
	}
	return b.String()
}
