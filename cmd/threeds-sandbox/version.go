package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version prints the module version, the VCS revision and the Go version
// the binary was built with.
func version(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return strayArgument("version", args[0])
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(info))
	return nil
}

// versionText describes a build: the module version ("(devel)" when
// unknown), the revision with its time and whether the tree was modified
// when the VCS stamped it, and the Go version and platform.
func versionText(info *debug.BuildInfo) string {
	v, revision, at, modified := "", "", "", false
	if info != nil {
		v = info.Main.Version
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	out := "threeds-sandbox " + v + "\n"
	if revision != "" {
		if modified {
			revision += " (modified)"
		}
		if at != "" {
			revision += ", " + at
		}
		out += "revision " + revision + "\n"
	}
	return out + fmt.Sprintf("built with %s for %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
