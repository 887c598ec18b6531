package main

import (
	"os/exec"
	"syscall"
)

// orphanProof makes the kernel stop cmd's process when loadbench dies, so
// an interrupted run leaves no server behind.
func orphanProof(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
