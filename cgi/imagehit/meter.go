package imagehit

import (
	"time"

	"hitcounter/cgi/internal/logline"
	"hitcounter/cgi/meter"
	"hitcounter/store"
)

// MeterHooks are the cost meter's ways into the database (package
// cgi/meter), each a short write transaction that open opens, and its
// warnings, to log: the same for the hit binary and the full tool.
func MeterHooks(open func(readOnly bool) (*store.DB, error), now func() time.Time, log *logline.Logger) meter.Hooks {
	return meter.Hooks{
		Fold: func(days []meter.Day) ([]string, error) {
			db, err := open(false)
			if err != nil {
				return nil, err
			}
			defer db.Close()
			return db.FoldCosts(days, now())
		},
		Build: func(id string, k meter.Kind, f meter.Figures) (string, error) {
			db, err := open(false)
			if err != nil {
				return "", err
			}
			defer db.Close()
			return db.BuildCosts(id, k, f, now())
		},
		Warn:    func(line string) { log.Printf("%s", line) },
		MaxLine: logline.MaxLine - len("counter: \n"),
	}
}
