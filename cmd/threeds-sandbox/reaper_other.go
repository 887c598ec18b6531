//go:build !linux

package main

import "os/exec"

// commandFor returns the process exec starts for command: the command
// itself. Without Linux's child subreaper, what ends with the command is
// its process group (see processGroup): a process that leaves it
// (setsid), or one left running when exec itself is killed with SIGKILL,
// is not ended.
func commandFor(command []string) (*exec.Cmd, error) {
	return exec.Command(command[0], command[1:]...), nil
}
