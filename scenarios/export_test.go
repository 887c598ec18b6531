package scenarios

// The tests read single files and build catalogues of them directly;
// the program only ever loads whole sets (Load, Source).

// Parse reads one scenario file and checks it on its own: its syntax, keys
// and values, and duplicate ids and matches inside it. The fallback
// id it names is checked against the other files by NewCatalogue. Every
// problem is returned at once in a *LoadError. Parse never panics.
func Parse(name string, data []byte) (*File, error) {
	f, problems := parseFile(name, data)
	problems = append(problems, checkDuplicates([]*File{f})...)
	if err := loadError(problems); err != nil {
		return nil, err
	}
	return f, nil
}

// NewCatalogue builds a catalogue from parsed files, in order. It checks
// what spans files: duplicate ids, duplicate matches (same selectors and
// priority), at most one file setting fallback, and that the fallback
// names a known scenario. Every problem is returned at once in a
// *LoadError.
func NewCatalogue(files ...*File) (*Catalogue, error) {
	fb, problems := crossCheck(files, "")
	if err := loadError(problems); err != nil {
		return nil, err
	}
	return assemble(files, fb), nil
}
