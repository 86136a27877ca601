package web

// noCosts stops a's timing of requests, for a test of what requests write
// to the file.
func noCosts(a *App) {
	a.proc.Meter.Close()
	a.proc.Meter = nil
}
