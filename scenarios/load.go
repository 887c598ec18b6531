package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed defaults/*.yaml
var defaultFiles embed.FS

//go:embed schema.json
var schema []byte

// Defaults returns the embedded default scenario files, under defaults/.
func Defaults() fs.FS {
	return defaultFiles
}

// Schema returns the JSON Schema (draft 2020-12) of the scenario file
// format. Editors that read a "# yaml-language-server: $schema=..." line
// use it for completion and checks.
func Schema() []byte {
	out := make([]byte, len(schema))
	copy(out, schema)
	return out
}

// LoadOptions says which scenario files make the catalogue.
type LoadOptions struct {
	// NoDefaults leaves the embedded default scenarios out (replace mode);
	// otherwise the user files add to them.
	NoDefaults bool
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
		parsed, more := parseDefaults()
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

// parseDefaults parses the embedded default files. Their fallback yields
// to one set by a user file.
func parseDefaults() ([]*File, []Problem) {
	names, err := fs.Glob(defaultFiles, "defaults/*.yaml")
	if err != nil {
		return nil, []Problem{{File: "defaults", Reason: fmt.Sprintf("listing embedded defaults: %v", err)}}
	}
	var files []*File
	var problems []Problem
	for _, name := range names {
		data, err := fs.ReadFile(defaultFiles, name)
		if err != nil {
			problems = append(problems, Problem{File: name, Reason: fmt.Sprintf("reading embedded file: %v", err)})
			continue
		}
		f, more := parseFile(name, data)
		f.embedded = true
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

// parseOSFile reads and parses one file of the file system.
func parseOSFile(name string) (*File, []Problem) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, []Problem{{File: name, Reason: fmt.Sprintf("cannot read: %v", unwrapPath(err))}}
	}
	return parseFile(name, data)
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
