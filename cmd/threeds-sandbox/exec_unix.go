//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sweepGrace is how long the processes a command left behind get to end
// after SIGTERM, before SIGKILL.
const sweepGrace = 3 * time.Second

// processGroup is the command exec runs, in a process group of its own
// with every process it starts: a signal exec receives reaches all of
// them at once, and none is left behind when the command ends. When exec
// runs in the foreground of a terminal, the group takes the terminal while
// it runs, as a shell gives it to a job: the command may read the
// terminal, and a Ctrl-C reaches its processes, once each.
type processGroup struct {
	cmd     *exec.Cmd
	signals chan os.Signal
	tty     int // the terminal the group has taken, or -1
}

// newProcessGroup sets cmd up to start in a group of its own, and starts
// listening for SIGINT and SIGTERM before cmd starts, so that none is
// missed.
func newProcessGroup(cmd *exec.Cmd) *processGroup {
	g := &processGroup{cmd: cmd, signals: make(chan os.Signal, 4), tty: -1}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if fd := int(os.Stdin.Fd()); cmd.Stdin == os.Stdin && inForeground(fd) {
		cmd.SysProcAttr.Foreground, cmd.SysProcAttr.Ctty, g.tty = true, fd, fd
	}
	signal.Notify(g.signals, os.Interrupt, syscall.SIGTERM)
	return g
}

// inForeground tells whether fd is a terminal whose foreground process
// group is exec's own.
func inForeground(fd int) bool {
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

// release stops listening for signals, and takes the terminal back from
// the command's group. exec is in the background until then, where
// changing the terminal raises SIGTTOU: it is ignored meanwhile.
func (g *processGroup) release() {
	signal.Stop(g.signals)
	if g.tty < 0 {
		return
	}
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(g.tty, unix.TIOCSPGRP, unix.Getpgrp())
}

// signal sends s to every process of the group.
func (g *processGroup) signal(s os.Signal) {
	if sig, ok := s.(syscall.Signal); ok && g.cmd.Process != nil {
		_ = syscall.Kill(-g.cmd.Process.Pid, sig)
	}
}

// terminate asks every process of the group to stop.
func (g *processGroup) terminate() { g.signal(syscall.SIGTERM) }

// sweep stops what is left of the group once the command has ended:
// SIGTERM, then SIGKILL to whatever is still there after sweepGrace.
func (g *processGroup) sweep() {
	if g.cmd.Process == nil {
		return
	}
	pgid := -g.cmd.Process.Pid
	if errors.Is(syscall.Kill(pgid, syscall.SIGTERM), syscall.ESRCH) {
		return
	}
	for deadline := time.Now().Add(sweepGrace); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if errors.Is(syscall.Kill(pgid, 0), syscall.ESRCH) {
			return
		}
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
}

// endSignal is the signal that ended a process.
type endSignal struct {
	number int
	name   string
}

// signalOf is the signal that ended the process of state, if one did.
func signalOf(state *os.ProcessState) (endSignal, bool) {
	ws, ok := state.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return endSignal{}, false
	}
	return endSignal{number: int(ws.Signal()), name: ws.Signal().String()}, true
}
