package web

import (
	"runtime"
	"syscall"
)

// bcryptNice is the nice value a password check runs at.
const bcryptNice = 19

// atLowPriority runs fn on a thread of its own at nice bcryptNice and
// waits for it: a stranger's password check, so that a flood of logins,
// which keeps one core busy with bcrypt within the cap, gives way to the
// hits. Only that thread is lowered (Linux applies a thread ID's nice
// value to the thread alone), and it holds no lock but its bcrypt slot:
// the database is closed while bcrypt runs, so no hit ever waits on a
// starved check.
//
// An unprivileged process cannot raise a thread's priority again, so the
// goroutine ends still locked to the thread, and the runtime discards it.
func atLowPriority(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread goes with the goroutine
		syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), bcryptNice)
		fn()
	}()
	<-done
}

// lowPool runs work for a long-lived process on a few threads kept at nice
// bcryptNice: the login checks and bcrypt, so that a flood of logins gets
// what CPU the hits leave and no more. A CGI process has none, and runs
// that work where it is (its bcrypt still goes to a thread of its own).
type lowPool chan func()

// newLowPool starts workers threads at low priority. Close the pool to
// end them.
func newLowPool(workers int) lowPool {
	p := make(lowPool)
	for range workers {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), bcryptNice)
			for fn := range p {
				fn()
			}
		}()
	}
	return p
}

// lowPriority runs fn on the app's low-priority pool and waits for it, or
// runs it here when the app has none. A panic in fn is raised again here,
// where the handler's recovery can answer it.
func (a *App) lowPriority(fn func()) {
	if a.low == nil {
		fn()
		return
	}
	var panicked any
	done := make(chan struct{})
	a.low <- func() {
		defer close(done)
		defer func() { panicked = recover() }()
		fn()
	}
	<-done
	if panicked != nil {
		panic(panicked)
	}
}

// loginWork runs fn, a step of who's login: a stranger's on the
// low-priority pool (lowPriority), a known device's here, at normal
// priority. Known devices' logins are few (maxKnownLogins in hand in a
// process, 5 tries a minute each, one check at a time in their own slot),
// and one starved behind a flood of strangers' work would keep the owner
// waiting for seconds, his next try finding his own slot still held.
func (a *App) loginWork(who loginTry, fn func()) {
	if who.known {
		fn()
		return
	}
	a.lowPriority(fn)
}

// bcryptWork runs fn, the password check of who's login, as loginWork
// does, a stranger's on a thread of its own at nice bcryptNice: a CGI
// process has no pool, and lowers only the thread that runs bcrypt.
func (a *App) bcryptWork(who loginTry, fn func()) {
	if who.known {
		fn()
		return
	}
	a.lowPriority(func() { atLowPriority(fn) })
}
