package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFuzzScriptFindsPlantedCrasher runs deploy/test/fuzz.sh on a module of
// its own with one sound target and one that panics on a two-byte input: the
// script must still fail on a real finding (its retry is for Go's coordinator
// flake alone), name the target and print the input it wrote, and pass the
// sound one.
func TestFuzzScriptFindsPlantedCrasher(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes for several seconds")
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod": "module planted\n\ngo 1.26\n",
		// Written with FUNC for func, so that fuzz.sh, which finds
		// targets by their lines, does not take these for this package's.
		"planted/planted_test.go": strings.ReplaceAll(`package planted

import "testing"

FUNC FuzzSound(f *testing.F) {
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, b []byte) {})
}

FUNC FuzzPlanted(f *testing.F) {
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= 2 && b[0] != 'a' && b[1] != 'a' {
			panic("planted crasher")
		}
	})
}
`, "FUNC", "func"),
	}
	for name, text := range files {
		path := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs("fuzz.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "FUZZ_MODULE="+mod, "FUZZ_TIME=5s")
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err == nil {
		t.Fatalf("fuzz.sh passed with a planted crasher:\n%s", text)
	}
	for _, want := range []string{
		"fuzz FuzzSound (./planted): ",
		"fuzz FuzzPlanted (./planted): FAILED",
		"failing input ./planted/testdata/fuzz/FuzzPlanted/",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("fuzz.sh output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "FuzzPlanted (./planted): ended with no failing input") {
		t.Errorf("fuzz.sh took a real finding for the coordinator's flake:\n%s", text)
	}
}

// TestFuzzScriptRetriesCoordinatorFlake puts a stand-in go on PATH that fails
// as Go 1.26's coordinator does at the end of a -fuzztime (no input written,
// "context deadline exceeded"): once is named and run again, twice fails.
func TestFuzzScriptRetriesCoordinatorFlake(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flakes   int // how many runs end as the flake before one passes
		wantFail bool
	}{
		{"once", 1, false},
		{"twice", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mod := t.TempDir()
			if err := os.MkdirAll(filepath.Join(mod, "p"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(mod, "p", "p_test.go"), []byte("package p\n\n"+"func FuzzOne(f *testing.F) {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			bin := t.TempDir()
			count := filepath.Join(t.TempDir(), "runs")
			stub := `#!/bin/sh
n=$(cat "` + count + `" 2>/dev/null || echo 0)
n=$((n+1)); echo $n >"` + count + `"
if [ $n -le ` + strconv.Itoa(tc.flakes) + ` ]; then
	echo "fuzz: elapsed: 15s, execs: 1234 (82/sec), new interesting: 0 (total: 3)"
	echo "--- FAIL: FuzzOne (15.02s)"
	echo "    context deadline exceeded"
	exit 1
fi
echo "fuzz: elapsed: 15s, execs: 4321 (288/sec), new interesting: 0 (total: 3)"
echo PASS
`
			if err := os.WriteFile(filepath.Join(bin, "go"), []byte(stub), 0o755); err != nil {
				t.Fatal(err)
			}
			script, err := filepath.Abs("fuzz.sh")
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", script)
			cmd.Env = append(os.Environ(), "FUZZ_MODULE="+mod, "PATH="+bin+":"+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			text := string(out)
			if failed := err != nil; failed != tc.wantFail {
				t.Fatalf("fuzz.sh failed = %v, want %v:\n%s", failed, tc.wantFail, text)
			}
			if !strings.Contains(text, "go.dev/issue/75804") {
				t.Errorf("fuzz.sh does not name the coordinator's flake:\n%s", text)
			}
			if !tc.wantFail && strings.Contains(text, "--- FAIL") {
				t.Errorf("fuzz.sh shows a retried flake as a failure, which .ci/run counts:\n%s", text)
			}
			if !tc.wantFail && !strings.Contains(text, "fuzz FuzzOne (./p): 4321 execs in 15s, ok") {
				t.Errorf("fuzz.sh did not report the rerun's pass:\n%s", text)
			}
		})
	}
}
