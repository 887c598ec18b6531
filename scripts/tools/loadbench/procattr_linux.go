package main

import (
	"os/exec"
	"syscall"
)

// orphanProof makes the kernel stop cmd's process when loadbench dies, so
// an interrupted run leaves no server behind.
func orphanProof(cmd *exec.Cmd) {
	attrs(cmd).Pdeathsig = syscall.SIGTERM
}

// ownGroup starts cmd in a process group of its own, so stopProcess ends
// the processes it starts as well (a peer's runtime may fork).
func ownGroup(cmd *exec.Cmd) {
	attrs(cmd).Setpgid = true
}

// signalProcess sends sig to cmd's process, or to its whole process group
// when ownGroup made it lead one.
func signalProcess(cmd *exec.Cmd, sig syscall.Signal) error {
	if leadsGroup(cmd) {
		return syscall.Kill(-cmd.Process.Pid, sig)
	}
	return cmd.Process.Signal(sig)
}

// leadsGroup tells whether ownGroup made cmd lead a process group.
func leadsGroup(cmd *exec.Cmd) bool { return cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid }

// attrs returns cmd's SysProcAttr, made if it has none.
func attrs(cmd *exec.Cmd) *syscall.SysProcAttr {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	return cmd.SysProcAttr
}
