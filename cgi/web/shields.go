package web

import (
	"net/http"
	"strconv"

	"hitcounter/cgi/meter"
	"hitcounter/counter"
)

// serveShields answers /NAME.shields.json in the schema of shields.io's
// endpoint badge, so that a README can show the count in a badge
// service's styles (https://shields.io/badges/endpoint-badge). It counts
// nothing: the badge service asks again each time it draws the badge. An
// error answers 200 with isError, as shields.io needs to show it.
func (a *App) serveShields(w http.ResponseWriter, r *http.Request, name string) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	g, err := a.glanceQuery(r, name)
	short := false
	if err == nil {
		short, err = abbreviated(r.URL.RawQuery)
	}
	label := "views"
	if g.Settings.Show == counter.ShowVisitors {
		label = "visitors"
	}
	if err != nil {
		// shields.io reads the body of a 200 alone: any other status
		// becomes its own "not found" or "inaccessible" (badges/shields,
		// core/base-service/check-error-response.js), and the owner
		// would never see why. So the status goes in a header, and the
		// badge says the message.
		status, msg := publicError(err)
		a.log.Printf("%s %q: %v", r.Method, r.URL.Path, err)
		w.Header().Set(errorHeader, strconv.Itoa(status)+" "+msg)
		writeJSON(w, r, http.StatusOK, shieldsAnswer{1, label, msg, "lightgrey", true})
		return
	}
	tag(w, meter.JSON)
	message := strconv.FormatUint(g.Shown, 10)
	if short {
		message = counter.Abbreviate(g.Shown)
	}
	writeJSON(w, r, http.StatusOK, shieldsAnswer{1, label, message, "blue", false})
}

// abbreviated reads whether a query that glanceQuery took asks for a
// short count, abbreviated=1 as an image reads it.
func abbreviated(rawQuery string) (bool, error) {
	v, ok, err := queryValue(rawQuery, "abbreviated")
	if err != nil || !ok {
		return false, err
	}
	return counter.ParseAbbreviated(v)
}

// shieldsAnswer is shields.io's endpoint schema, its fields in its order.
type shieldsAnswer struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
	IsError       bool   `json:"isError,omitempty"`
}
