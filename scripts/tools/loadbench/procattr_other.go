//go:build !linux

package main

import (
	"os/exec"
	"syscall"
)

// orphanProof does nothing where the kernel cannot stop a child with its
// parent; stopProcess still ends the servers of a run that completes.
func orphanProof(*exec.Cmd) {}

// ownGroup does nothing here: stopProcess ends the started process only.
func ownGroup(*exec.Cmd) {}

// signalProcess sends sig to cmd's process.
func signalProcess(cmd *exec.Cmd, sig syscall.Signal) error {
	if sig == syscall.SIGKILL {
		return cmd.Process.Kill()
	}
	return cmd.Process.Signal(sig)
}

// leadsGroup is false here: ownGroup makes no process group.
func leadsGroup(*exec.Cmd) bool { return false }
