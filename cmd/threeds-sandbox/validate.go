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
var errInvalid = errors.New("validate: the scenario files have problems")

// validateFlags declares the flags of validate.
func validateFlags() (fs *flag.FlagSet, alone *bool) {
	fs = flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	alone = fs.Bool("alone", false, "check the files without the embedded defaults (as --scenarios-mode replace)")
	return fs, alone
}

// printValidateUsage writes the usage of validate.
func printValidateUsage(w io.Writer) {
	fmt.Fprint(w, `usage: threeds-sandbox validate [--alone] FILE_OR_DIR...

checks scenario files (of a directory: its *.yaml and *.yml files) with the
rules of start-up, prints every problem as file:line: reason, and exits 1
when there is one.

`)
	fs, _ := validateFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// validate checks scenario files offline with the rules of start-up and
// prints file:line: reason for every problem.
func validate(args []string, stdout, stderr io.Writer) error {
	fs, alone := validateFlags()
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printValidateUsage(stdout)
		return nil
	case err != nil:
		return usageError("validate: %w", err)
	case fs.NArg() == 0:
		return usageError("validate: name at least one scenario file or directory")
	}
	cat, err := scenarios.Load(scenarios.LoadOptions{NoDefaults: *alone, Paths: fs.Args()})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return errInvalid
	}
	fmt.Fprintf(stdout, "ok: %d scenarios\n", cat.Len())
	return nil
}
