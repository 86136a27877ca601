package web

import (
	"net/http"
	"strconv"

	"hitcounter/counter"
	"hitcounter/counter/costs"
)

// serveShields answers /NAME.shields.json in the schema of shields.io's
// endpoint badge, so that a README can show the count in a badge
// service's styles (https://shields.io/badges/endpoint-badge). It counts
// nothing: the badge service asks again each time it draws the badge.
func (a *App) serveShields(w http.ResponseWriter, r *http.Request, name string) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	g, err := a.glanceQuery(r, name)
	label := "views"
	if g.Settings.Show == counter.ShowVisitors {
		label = "visitors"
	}
	if err != nil {
		status, msg := publicError(err)
		a.log.Printf("%s %q: %v", r.Method, r.URL.Path, err)
		writeJSON(w, r, status, jsonCount("schemaVersion", 1), jsonString("label", label),
			jsonString("message", msg), jsonString("color", "lightgrey"), jsonBool("isError", true))
		return
	}
	tag(w, costs.JSON)
	writeJSON(w, r, http.StatusOK, jsonCount("schemaVersion", 1), jsonString("label", label),
		jsonString("message", strconv.FormatUint(g.Shown, 10)), jsonString("color", "blue"))
}
