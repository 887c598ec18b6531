//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// sweepGrace is how long the processes a command left behind get to end
// after SIGTERM, before SIGKILL.
const sweepGrace = 3 * time.Second

// processGroup is the command exec runs, in a process group of its own
// with every process it starts: a signal reaches all of them at once, and
// none is left behind when the command ends. The group is not the
// terminal's foreground group, so a Ctrl-C reaches exec, which passes it
// on: each process gets it once.
type processGroup struct {
	cmd     *exec.Cmd
	signals chan os.Signal
}

// newProcessGroup sets cmd up to start in a group of its own, and starts
// listening for SIGINT and SIGTERM before cmd starts, so that none is
// missed.
func newProcessGroup(cmd *exec.Cmd) *processGroup {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	g := &processGroup{cmd: cmd, signals: make(chan os.Signal, 4)}
	signal.Notify(g.signals, os.Interrupt, syscall.SIGTERM)
	return g
}

// release stops listening for signals.
func (g *processGroup) release() { signal.Stop(g.signals) }

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
