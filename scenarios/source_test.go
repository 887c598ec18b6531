package scenarios

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// userFile is a valid user file whose one scenario answers status for
// cards starting 9.
func userFile(status string) string {
	return "scenarios:\n  - id: mine\n    match: {cardPrefix: \"9\"}\n    frictionless: {status: " + status + ", reason: \"01\"}\n"
}

// statusOf returns the frictionless status the catalogue gives card 9....
func statusOf(c *Catalogue) string {
	return c.Match(Request{CardNumber: "9000000000000000"}).Frictionless.Status
}

func TestSourceReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(userFile("N"))
	src, err := NewSource(LoadOptions{NoDefaults: true, Paths: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		content string
		wantErr bool
		want    string
	}{
		{"valid set replaces the old", userFile("R"), false, "R"},
		{"invalid set keeps the old", "scenarios:\n  - id: mine\n    frictionless: {status: Q}\n", true, "R"},
		{"empty file keeps the old", "", true, "R"},
		{"valid again", userFile("U"), false, "U"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := src.Current()
			write(tt.content)
			err := src.Reload()
			var le *LoadError
			switch {
			case tt.wantErr && !errors.As(err, &le):
				t.Fatalf("got error %v, want a *LoadError", err)
			case !tt.wantErr && err != nil:
				t.Fatalf("got error %v, want none", err)
			case tt.wantErr && src.Current() != before:
				t.Error("an invalid set replaced the catalogue")
			}
			if got := statusOf(src.Current()); got != tt.want {
				t.Errorf("got status %s, want %s", got, tt.want)
			}
		})
	}
}

func TestNewSourceRefusesInvalidSet(t *testing.T) {
	src, err := NewSource(LoadOptions{Paths: []string{filepath.Join(t.TempDir(), "missing.yaml")}})
	var le *LoadError
	if src != nil || !errors.As(err, &le) {
		t.Errorf("got %v, %v, want nil and a *LoadError", src, err)
	}
}

func TestSourceConcurrentReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(path, []byte(userFile("N")), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(LoadOptions{NoDefaults: true, Paths: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if s := statusOf(src.Current()); s != "N" && s != "R" {
					t.Errorf("got status %s mid-reload, want N or R", s)
					return
				}
			}
		}()
	}
	for i := range 20 {
		status := []string{"N", "R"}[i%2]
		if err := os.WriteFile(path, []byte(userFile(status)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := src.Reload(); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	wg.Wait()
}

func TestSourceWatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(path, []byte(userFile("N")), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(LoadOptions{NoDefaults: true, Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	reports := make(chan error, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		src.Watch(ctx, 10*time.Millisecond, func(err error) { reports <- err })
		close(done)
	}()
	defer func() {
		cancel()
		<-done
	}()
	next := func() error {
		t.Helper()
		select {
		case err := <-reports:
			return err
		case <-time.After(5 * time.Second):
			t.Fatal("Watch reported nothing within 5s")
			return nil
		}
	}

	// An edit of the file is picked up.
	if err := os.WriteFile(path, []byte(userFile("R")+"# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := next(); err != nil {
		t.Fatalf("got report %v, want nil", err)
	}
	if got := statusOf(src.Current()); got != "R" {
		t.Errorf("after an edit: got status %s, want R", got)
	}

	// A new invalid file in the directory is reported and refused.
	if err := os.WriteFile(filepath.Join(dir, "broken.yml"), []byte("scenarios: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var le *LoadError
	if err := next(); !errors.As(err, &le) {
		t.Fatalf("got report %v, want a *LoadError", err)
	}
	if got := statusOf(src.Current()); got != "R" {
		t.Errorf("after an invalid file: got status %s, want R still", got)
	}

	// Removing it brings a valid set back.
	if err := os.Remove(filepath.Join(dir, "broken.yml")); err != nil {
		t.Fatal(err)
	}
	if err := next(); err != nil {
		t.Fatalf("got report %v, want nil", err)
	}
}
