package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// errInvalid is returned by validate when a file has problems; the problems
// themselves are already printed.
var errInvalid = errors.New("scenario files are invalid")

// validate checks scenario files offline with the rules of start-up and
// prints file:line: reason for every problem.
func validate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	alone := fs.Bool("alone", false, "check the files without the embedded defaults (as --scenarios-mode replace)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: threeds-sandbox validate [--alone] FILE_OR_DIR...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("validate: name at least one scenario file or directory")
	}
	cat, err := scenarios.Load(scenarios.LoadOptions{NoDefaults: *alone, Paths: fs.Args()})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return errInvalid
	}
	fmt.Fprintf(stdout, "ok: %d scenarios\n", cat.Len())
	return nil
}
