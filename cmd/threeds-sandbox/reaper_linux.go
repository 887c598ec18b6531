//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux, exec does not start the command itself: it starts its own
// binary again as the command's reaper (argv[0] reaperName), which
// starts the command and stays its parent. The reaper is a child
// subreaper (PR_SET_CHILD_SUBREAPER): every process the command starts
// that loses its parent is adopted by the reaper, whatever session or
// process group it moved to (setsid). It ends the whole tree (SIGTERM,
// then SIGKILL after sweepGrace) when the command ends, and when exec
// dies, even by SIGKILL: the reaper has a parent-death signal
// (Pdeathsig), and checks each second that exec is still its parent. A
// reaper sits between exec and the command, rather than exec being the
// subreaper itself, because a process killed with SIGKILL can end
// nothing: the reaper outlives exec long enough to end the tree. It
// exits as the command did: its exit status, or its signal.

// reaperName is the argv[0] of the reaper; its arguments are exec's
// process id, the command's path, then the command's argv.
const reaperName = "threeds-sandbox exec: reaper"

// init runs the reaper, in place of the program, in the process exec
// starts for it (the binary, or a test binary of this package).
func init() {
	if len(os.Args) > 3 && os.Args[0] == reaperName {
		os.Exit(reap(os.Args[1], os.Args[2], os.Args[3:]))
	}
}

// commandFor returns the process exec starts for command: the reaper of
// command, which dies with exec.
func commandFor(command []string) (*exec.Cmd, error) {
	path, err := exec.LookPath(command[0])
	if err != nil {
		return nil, startError(command[0], err)
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = append([]string{reaperName, strconv.Itoa(os.Getpid()), path}, command...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	return cmd, nil
}

// reap is the reaper: it runs argv (path resolved) until it ends, then
// ends what the command left; it ends everything when exec (process
// parent) is gone. It returns the exit status exec should see.
func reap(parent, path string, argv []string) int {
	events := make(chan os.Signal, 16)
	// The terminal's and exec's signals reach the command's process
	// group, the reaper included: the command acts on them, the reaper
	// only asks whether exec is gone.
	signal.Notify(events, syscall.SIGCHLD, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	execGone := func() bool { return strconv.Itoa(os.Getppid()) != parent }
	if execGone() {
		return 1
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "threeds-sandbox: exec: the command's processes could not be adopted (%v): a process it leaves behind may survive\n", err)
	}
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "threeds-sandbox:", startError(argv[0], err))
		return exitCode(startError(argv[0], err))
	}
	command := proc.Pid
	_ = proc.Release()

	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var status unix.WaitStatus
	for ended := false; !ended; {
		select {
		case s := <-events:
			if s != syscall.SIGCHLD && execGone() {
				endTree(events)
				return 1
			}
		case <-tick.C:
			if execGone() {
				endTree(events)
				return 1
			}
		}
		status, ended = reapChildren(command)
	}
	endTree(events)
	return mirror(status)
}

// reapChildren collects the ended children, adopted ones included,
// without waiting; ended tells whether command was among them, with its
// status.
func reapChildren(command int) (status unix.WaitStatus, ended bool) {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil || pid <= 0:
			return status, ended
		case pid == command:
			status, ended = ws, true
		}
	}
}

// endTree ends every process below the reaper: SIGTERM to each, SIGKILL
// to what is left after sweepGrace, reaping them as they end (each
// descendant whose parent ends is adopted), until none is left, or
// another sweepGrace has passed (a process SIGKILL cannot end at once,
// stuck in the kernel, is named on stderr then).
func endTree(events <-chan os.Signal) {
	deadline := time.Now().Add(sweepGrace)
	giveUp := deadline.Add(sweepGrace)
	asked := map[int]bool{}
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		reapChildren(0)
		left := descendants(os.Getpid())
		if len(left) == 0 {
			return
		}
		if time.Now().After(giveUp) {
			fmt.Fprintf(os.Stderr, "threeds-sandbox: exec: processes %v of the command did not end after SIGKILL\n", left)
			return
		}
		late := time.Now().After(deadline)
		for _, pid := range left {
			switch {
			case late:
				_ = unix.Kill(pid, unix.SIGKILL)
			case !asked[pid]:
				asked[pid] = true
				_ = unix.Kill(pid, unix.SIGTERM)
			}
		}
		select {
		case <-events:
		case <-poll.C:
		}
	}
}

// mirror is the exit status of the reaper for the command's status: the
// same exit code, or the same signal where the reaper can die of it (a
// Go program cannot die quietly of every signal: the others end it with
// 128 plus their number, the exit code a shell gives).
func mirror(ws unix.WaitStatus) int {
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case !ws.Signaled():
		return 1
	}
	sig := ws.Signal()
	switch sig {
	case unix.SIGHUP, unix.SIGINT, unix.SIGTERM, unix.SIGKILL, unix.SIGUSR1, unix.SIGUSR2, unix.SIGALRM:
		signal.Reset(sig)
		_ = unix.Kill(os.Getpid(), sig)
		// The signal ends the process before this line, or as soon as
		// the runtime delivers it.
		time.Sleep(time.Second)
	}
	return 128 + int(sig)
}

// descendants lists the live processes below pid (zombies left out:
// they have ended), from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	live := map[int]bool{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // ended meanwhile
		}
		if ppid, state, ok := parseStat(raw); ok {
			children[ppid] = append(children[ppid], p)
			live[p] = state != 'Z' && state != 'X'
		}
	}
	var out []int
	for queue := slices.Clone(children[pid]); len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if live[p] {
			out = append(out, p)
		}
		queue = append(queue, children[p]...)
	}
	return out
}

// parseStat reads the parent and the state of a process from its
// /proc/PID/stat: "pid (comm) state ppid ...", where comm may hold any
// byte, parentheses and blanks included, so the fields are read after
// its last ')'.
func parseStat(raw []byte) (ppid int, state byte, ok bool) {
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 || len(raw) < i+4 {
		return 0, 0, false
	}
	rest := raw[i+2:] // "S ppid ..."
	state = rest[0]
	var n int
	for _, c := range rest[2:] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n, state, len(rest) > 2 && rest[2] >= '0' && rest[2] <= '9'
}
