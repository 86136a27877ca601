package admin

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"hitcounter/store"
)

// metricsTokenBytes is the length of a metrics token's random part: so
// many bits that a fast hash of it (SHA-256) keeps it as safe as bcrypt
// would, and a scrape costs no bcrypt check.
const metricsTokenBytes = 32

// runToken makes a new token for what args name (only "metrics" so far),
// stores its hash, replacing the one before, and prints the token once on
// stdout, alone on its line, so that it can go straight into a file
// (counter token metrics > FILE) and never onto a command line.
func runToken(e *cmdEnv, args []string) error {
	if args[0] != "metrics" {
		return usagef("token: %q: the only token is metrics", args[0])
	}
	raw := make([]byte, metricsTokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return fmt.Errorf("token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	err := e.update(false, func(db *store.DB) error {
		if err := db.SetMetricsTokenHash(store.HashMetricsToken(token)); err != nil {
			return err
		}
		// The counters' sums of hits not counted, so that a scrape reads
		// a key of each, not its history; the hits keep them.
		return db.SettleNotCounted()
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, "counter: a new metrics token, printed this once (the one before no longer opens /metrics): give it to Prometheus as the bearer credentials of the scrape, in a credentials_file")
	fmt.Fprintln(e.stdout, token)
	return nil
}
