package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

//go:embed defaults/*.yaml
var defaultFiles embed.FS

//go:embed schema.json
var schema []byte

// Schema returns the JSON Schema (draft 2020-12) of the scenario file
// format. Editors that read a "# yaml-language-server: $schema=..." line
// use it for completion and checks: a release publishes it as
// scenario.schema.json, a sandbox serves it. The challenge's ui and the
// styles' own keys come from Styles (see completeSchema); the rest is
// schema.json, the base, which names no style.
func Schema() []byte {
	out, err := completeSchema(schema, Styles())
	if err != nil { // schema.json and the styles are the package's own: a test reads them
		panic(fmt.Sprintf("scenario schema: %v", err))
	}
	return out
}

// Names of the embedded packs: groups of embedded scenario files that can
// be switched off together.
const (
	// PackDefaults holds the sandbox's own test cards of every scheme,
	// the error cards and the fallback.
	PackDefaults = "defaults"
	// PackCardinal holds the numbered EMV 3DS test cases of Cardinal
	// Commerce's sandbox for Visa and Mastercard.
	PackCardinal = "cardinal"
	// PackReasons holds one Visa card per transStatusReason 01-26.
	PackReasons = "reasons"
)

// embeddedPacks names the pack of each embedded file that is not part of
// PackDefaults.
var embeddedPacks = map[string]string{
	"defaults/cardinal.yaml": PackCardinal,
	"defaults/reasons.yaml":  PackReasons,
}

// Packs returns the names of the embedded packs, all loaded by default.
func Packs() []string {
	return []string{PackDefaults, PackCardinal, PackReasons}
}

// packOf names the pack of a file: its embedded pack, or for a user file
// its base name without extension.
func packOf(name string, embedded bool) string {
	if embedded {
		if p, ok := embeddedPacks[name]; ok {
			return p
		}
		return PackDefaults
	}
	base := filepath.Base(name)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// LoadOptions says which scenario files make the catalogue.
type LoadOptions struct {
	// NoDefaults leaves every embedded pack out (replace mode); otherwise
	// the user files add to the packs Packs selects.
	NoDefaults bool
	// Packs names the embedded packs to load (see Packs); empty loads
	// them all. An unknown name is a problem of the load.
	Packs []string
	// Paths are user scenario files or directories. A directory
	// contributes every *.yaml and *.yml file directly in it, in name
	// order; subdirectories are not read.
	Paths []string
	// Fallback, when not empty, is the id of the scenario unmatched cards
	// get, overriding the files' fallback.
	Fallback string
}

// Load reads the embedded defaults (unless NoDefaults) and the user files,
// checks them and builds the catalogue. It reports every problem of every
// file at once in a *LoadError.
func Load(opts LoadOptions) (*Catalogue, error) {
	var files []*File
	var problems []Problem
	if !opts.NoDefaults {
		parsed, more := parseDefaults(opts.Packs)
		files, problems = append(files, parsed...), append(problems, more...)
	}
	for _, p := range opts.Paths {
		parsed, more := parsePath(p)
		files, problems = append(files, parsed...), append(problems, more...)
	}
	fb, more := crossCheck(files, opts.Fallback)
	problems = append(problems, more...)
	if err := loadError(problems); err != nil {
		return nil, err
	}
	return assemble(files, fb), nil
}

// parseDefaults parses the embedded files of the selected packs (all when
// packs is empty). Their fallback yields to one set by a user file.
func parseDefaults(packs []string) ([]*File, []Problem) {
	var problems []Problem
	for _, p := range packs {
		if !slices.Contains(Packs(), p) {
			problems = append(problems, Problem{Reason: fmt.Sprintf("unknown pack %q (known packs: %s)", p, strings.Join(Packs(), ", "))})
		}
	}
	names, err := fs.Glob(defaultFiles, "defaults/*.yaml")
	if err != nil {
		return nil, append(problems, Problem{File: "defaults", Reason: fmt.Sprintf("listing embedded defaults: %v", err)})
	}
	var files []*File
	for _, name := range names {
		if len(packs) > 0 && !slices.Contains(packs, packOf(name, true)) {
			continue
		}
		data, err := fs.ReadFile(defaultFiles, name)
		if err != nil {
			problems = append(problems, Problem{File: name, Reason: fmt.Sprintf("reading embedded file: %v", err)})
			continue
		}
		f, more := parseFile(name, data)
		f.embedded = true
		setPack(f, packOf(name, true))
		files, problems = append(files, f), append(problems, more...)
	}
	return files, problems
}

// parsePath parses one user file, or every *.yaml and *.yml file directly
// in a directory, in name order.
func parsePath(path string) ([]*File, []Problem) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, []Problem{{File: path, Reason: fmt.Sprintf("cannot read: %v", unwrapPath(err))}}
	}
	if !info.IsDir() {
		f, problems := parseOSFile(path)
		if f == nil {
			return nil, problems
		}
		return []*File{f}, problems
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, []Problem{{File: path, Reason: fmt.Sprintf("cannot read directory: %v", unwrapPath(err))}}
	}
	var names []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
			names = append(names, filepath.Join(path, e.Name()))
		}
	}
	if len(names) == 0 {
		return nil, []Problem{{File: path, Reason: "directory holds no *.yaml or *.yml file"}}
	}
	sort.Strings(names)
	var files []*File
	var problems []Problem
	for _, name := range names {
		f, more := parseOSFile(name)
		problems = append(problems, more...)
		if f != nil {
			files = append(files, f)
		}
	}
	return files, problems
}

// MaxFileBytes is the largest scenario file that is read: 4 MiB, a
// hundred times the largest file shipped. Parsing costs many times a file's
// size in memory, so a larger file is refused before it is read.
const MaxFileBytes = 4 << 20

// parseOSFile reads and parses one file of the file system, refusing one
// larger than MaxFileBytes.
func parseOSFile(name string) (*File, []Problem) {
	data, err := readCapped(name)
	if err != nil {
		return nil, []Problem{{File: name, Reason: err.Error()}}
	}
	return parseFile(name, data)
}

// readCapped reads a file of at most MaxFileBytes. It checks the size
// before reading, and reads no more than one byte past the limit in case
// the file grows or reports no size (a pipe, a device).
func readCapped(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPath(err))
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > MaxFileBytes {
		return nil, fmt.Errorf("too large (%d bytes, limit %d MiB)", info.Size(), MaxFileBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPath(err))
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("too large (more than %d bytes, limit %d MiB)", MaxFileBytes, MaxFileBytes>>20)
	}
	return data, nil
}

// unwrapPath drops the operation and path of a *fs.PathError, which the
// problem already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// setPack names the pack of every scenario of f.
func setPack(f *File, pack string) {
	for i := range f.Scenarios {
		f.Scenarios[i].Pack = pack
	}
}
