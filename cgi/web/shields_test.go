package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// validShieldsEndpoint checks body against shields.io's endpoint schema,
// as badges/shields writes it with Joi in services/endpoint-common.js (at
// 07038988b392ecdc62f8074511d68fd242828e37, endpointSchema, validated with
// allowAndStripUnknownKeys false): no key but its own, schemaVersion 1,
// label a string (empty allowed) and message a non-empty one, both
// required, isError a boolean, cacheSeconds a whole number from 0,
// logoColor only with namedLogo, logoWidth and logoPosition only with a
// logo, namedLogo and logoSvg not both.
func validShieldsEndpoint(body []byte) error {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	str := func(k string, empty bool) (bool, error) {
		v, ok := m[k]
		if !ok {
			return false, nil
		}
		s, isStr := v.(string)
		if !isStr || s == "" && !empty {
			return true, fmt.Errorf("%s: %v is no string Joi.string() takes", k, v)
		}
		return true, nil
	}
	for k, v := range m {
		switch k {
		case "schemaVersion":
			if v != float64(1) {
				return fmt.Errorf("schemaVersion %v, want 1", v)
			}
		case "label":
			if _, err := str(k, true); err != nil {
				return err
			}
		case "message", "color", "labelColor", "namedLogo", "logoSvg", "style":
			if _, err := str(k, false); err != nil {
				return err
			}
		case "logoColor":
			if _, err := str(k, false); err != nil {
				return err
			}
			if _, ok := m["namedLogo"]; !ok {
				return fmt.Errorf("logoColor without namedLogo")
			}
		case "isError":
			if _, ok := v.(bool); !ok {
				return fmt.Errorf("isError %v is no boolean", v)
			}
		case "logoWidth", "logoPosition":
			_, named := m["namedLogo"]
			_, svg := m["logoSvg"]
			if _, ok := v.(float64); !ok || !named && !svg {
				return fmt.Errorf("%s %v without a logo", k, v)
			}
		case "cacheSeconds":
			f, ok := v.(float64)
			if !ok || f < 0 || f != float64(int64(f)) {
				return fmt.Errorf("cacheSeconds %v", v)
			}
		default:
			return fmt.Errorf("key %q is not in the schema", k)
		}
	}
	for _, k := range []string{"label", "message"} {
		if _, ok := m[k]; !ok {
			return fmt.Errorf("no %s", k)
		}
	}
	if _, named := m["namedLogo"]; named {
		if _, svg := m["logoSvg"]; svg {
			return fmt.Errorf("namedLogo and logoSvg both")
		}
	}
	return nil
}

func TestShieldsSchemaRefuses(t *testing.T) {
	for _, body := range []string{
		`{"schemaVersion":1,"label":"views","message":""}`,
		`{"schemaVersion":1,"message":"3"}`,
		`{"schemaVersion":2,"label":"views","message":"3"}`,
		`{"schemaVersion":1,"label":"views","message":"3","error":"x"}`,
		`{"schemaVersion":1,"label":"views","message":"3","isError":"true"}`,
	} {
		if validShieldsEndpoint([]byte(body)) == nil {
			t.Errorf("%s: got valid, want refused", body)
		}
	}
}

// TestShieldsErrorsAnswer200 asks the shields endpoint what fails: each
// answer is a 200 (shields.io reads no other status's body) whose body the
// endpoint schema takes, with isError and the message the visitor would
// see; the same requests on /NAME.json keep their status.
func TestShieldsErrorsAnswer200(t *testing.T) {
	for _, tc := range []struct {
		name, target, message string
		status                int // of the same request on /NAME.json
	}{
		{"works", "/page", "0", 200},
		{"unknown counter", "/nope", "no such counter", 404},
		{"bad name", "/a%20b", "invalid counter name", 400},
		{"long query", "/page?x=" + strings.Repeat("a", 9000), "", 400}, // past the JSON endpoint's 8 KiB too
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := testApp(t, "page")
			base, query, _ := strings.Cut(tc.target, "?")
			if query != "" {
				query = "?" + query
			}
			w := serve(a, "GET", base+".shields.json"+query)
			if w.Code != 200 {
				t.Fatalf("got status %d, want 200", w.Code)
			}
			if err := validShieldsEndpoint(w.Body.Bytes()); err != nil {
				t.Fatalf("%s: %v", w.Body, err)
			}
			var m map[string]any
			json.Unmarshal(w.Body.Bytes(), &m)
			if isErr := m["isError"] == true; isErr != (tc.status != 200) {
				t.Errorf("got isError %v, want %v", m["isError"], tc.status != 200)
			}
			if tc.message != "" && m["message"] != tc.message {
				t.Errorf("got message %q, want %q", m["message"], tc.message)
			}
			if got := serve(a, "GET", base+".json"+query).Code; got != tc.status {
				t.Errorf("/NAME.json: got status %d, want %d", got, tc.status)
			}
		})
	}
}
