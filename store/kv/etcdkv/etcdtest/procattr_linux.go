package etcdtest

import "syscall"

// procAttr ends the server with the test process, even one that panics
// or times out before its clean-up runs.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
