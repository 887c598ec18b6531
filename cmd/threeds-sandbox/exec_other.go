//go:build !unix

package main

import (
	"os"
	"os/exec"
	"os/signal"
)

// processGroup is the command exec runs. Without process groups, a
// signal is passed on to the command alone, and where a process cannot
// be sent one (Windows), it is killed.
type processGroup struct {
	cmd     *exec.Cmd
	signals chan os.Signal
}

// newProcessGroup starts listening for an interrupt before cmd starts.
func newProcessGroup(cmd *exec.Cmd) *processGroup {
	g := &processGroup{cmd: cmd, signals: make(chan os.Signal, 4)}
	signal.Notify(g.signals, os.Interrupt)
	return g
}

// release stops listening for signals.
func (g *processGroup) release() { signal.Stop(g.signals) }

// signal passes s on to the command, or kills it.
func (g *processGroup) signal(s os.Signal) {
	if g.cmd.Process != nil && g.cmd.Process.Signal(s) != nil {
		_ = g.cmd.Process.Kill()
	}
}

// terminate asks the command to stop.
func (g *processGroup) terminate() { g.signal(os.Interrupt) }

// sweep has nothing to stop: the command's own processes are its own.
func (g *processGroup) sweep() {}

// endSignal is the signal that ended a process.
type endSignal struct {
	number int
	name   string
}

// signalOf tells that no signal ends a process here.
func signalOf(*os.ProcessState) (endSignal, bool) { return endSignal{}, false }
