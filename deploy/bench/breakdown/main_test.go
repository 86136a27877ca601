package main

import (
	"strings"
	"testing"
)

// script is perf script's output as bench-breakdown.sh asks for it, cut
// down: a sample of another process, an init, a fault in a commit's
// write that touched the heap, and a sample in the kernel's fdatasync.
const script = `bash 10 11467.9: page-faults/period=1/:     7ffd1176c0b9 [unknown] ([stack])
	ffffffff81bacf18 _copy_to_user ([kernel.kallsyms])

counter 12 11467.908432: cpu-clock/period=10000/: 
	ffffffff822424d7 exc_page_fault ([kernel.kallsyms])
	          4a0000 hash/crc32.init (/tmp/counter)
	          4a0100 runtime.doInit1 (/tmp/counter)
	          4a0200 runtime.main (/tmp/counter)
	          4a0300 runtime.goexit.abi0 (/tmp/counter)

counter 12 11467.908433:   page-faults/period=1/:     c000010000 [unknown] ([unknown])
	          4b0000 runtime.memmove (/tmp/counter)
	          4b0100 go.etcd.io/bbolt.(*Tx).write (/tmp/counter)
	          4b0200 go.etcd.io/bbolt.(*Tx).Commit (/tmp/counter)
	          4b0300 hitcounter/store.(*DB).Visit (/tmp/counter)
	          4b0400 main.main (/tmp/counter)

counter 12 11467.908434: cpu-clock/period=10000/: 
	ffffffff81000001 ext4_sync_file ([kernel.kallsyms])
	          4c0000 internal/runtime/syscall/linux.Syscall6 (/tmp/counter)
	          4c0100 syscall.Fdatasync (/tmp/counter)
	          4c0200 go.etcd.io/bbolt.(*Tx).Commit (/tmp/counter)
	          4c0300 main.main (/tmp/counter)
`

func TestReadSamples(t *testing.T) {
	var got []string
	err := readSamples(strings.NewReader(script), "counter", func(s sample) {
		phase, pkg := phaseOf(s.chain)
		got = append(got, s.event+" "+phase+" "+pkg+" "+segmentOf(s, []section{{".text", 0x400000, 0x500000}}))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"cpu-clock package inits hash/crc32 anonymous (heap, goroutine stacks, runtime)",
		"page-faults commit: write pages  anonymous (heap, goroutine stacks, runtime)",
		"cpu-clock commit: fdatasync  anonymous (heap, goroutine stacks, runtime)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPkgOf(t *testing.T) {
	for _, tc := range []struct{ sym, want string }{
		{"hitcounter/store.(*DB).Visit", "hitcounter/store"},
		{"go.etcd.io/bbolt.(*Tx).Commit", "go.etcd.io/bbolt"},
		{"runtime.main", "runtime"},
		{"crypto/internal/fips140/edwards25519/field.feSquare", "crypto/internal/fips140/edwards25519/field"},
	} {
		t.Run(tc.sym, func(t *testing.T) {
			if got := pkgOf(tc.sym); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPhaseOf sorts call chains of the hit binary (cgi/hit), leaf first,
// into its phases.
func TestPhaseOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chain []string
		want  string
	}{
		{"judging in cgi/imagehit", []string{"hitcounter/cgi/imagehit.(*Server).judge", "hitcounter/cgi/imagehit.(*Server).hit",
			"hitcounter/cgi/imagehit.(*Server).Serve", "main.serveRecovered", "main.serve", "main.run", "main.main", "runtime.main"},
			"judging, handler (cgi/imagehit, cgi/web)"},
		{"the answer by cgi/gateway/cgiwire", []string{"syscall.write", "os.(*File).Write", "hitcounter/cgi/gateway/cgiwire.WriteAnswer",
			"main.serve", "main.run", "main.main", "runtime.main"}, "request and answer (cgi/gateway/cgiwire)"},
		{"the request read by main", []string{"hitcounter/cgi/gateway/cgiwire.(*Env).Header", "main.imageRequest.func1",
			"hitcounter/cgi/imagehit.siteOf", "main.run", "main.main", "runtime.main"}, "judging, handler (cgi/imagehit, cgi/web)"},
		{"the environment read by main", []string{"strings.IndexByte", "main.imageRequest", "main.run", "main.main", "runtime.main"},
			"request and answer (cgi/gateway/cgiwire)"},
		{"the meter's hooks, inlined into main", []string{"go.etcd.io/bbolt.(*DB).Update", "hitcounter/store.(*DB).FoldCosts",
			"main.serve.MeterHooks.func3", "hitcounter/cgi/meter.(*Meter).fold", "main.serve", "main.main"}, "cost meter (cgi/meter, the build's ID)"},
		{"the build's ID for the meter", []string{"syscall.readlinkat", "os.executable", "hitcounter/cgi/internal/buildinfo.Read",
			"main.serve", "main.run", "main.main"}, "cost meter (cgi/meter, the build's ID)"},
		{"a digit set drawn", []string{"hitcounter/counter/draw.WriteDigitSet",
			"hitcounter/cgi/imagehit.(*Server).drawSet", "hitcounter/cgi/imagehit.(*Server).Serve", "main.main"},
			"drawing a digit set (its read and drawing)"},
		{"a digit set read", []string{"hitcounter/counter/digitset.(*Set).Detach", "hitcounter/store.(*DB).DigitSet",
			"hitcounter/cgi/imagehit.(*Server).digitSet", "hitcounter/cgi/imagehit.(*Server).drawSet", "main.main"},
			"drawing a digit set (its read and drawing)"},
		{"the font's PNG encoded", []string{"compress/flate.(*compressor).deflate", "hitcounter/counter/draw.(*Drawing).Encode",
			"hitcounter/cgi/imagehit.(*Server).drawCount", "main.main"}, "encoding (PNG)"},
		{"os.Exit from main.main", []string{"runtime.exit.abi0", "os.Exit", "main.main", "runtime.main"}, "exit (the kernel unmaps the process)"},
		{"back from a system call in main", []string{"runtime.exitsyscall", "syscall.Syscall", "hitcounter/cgi/internal/sibling.Exec", "main.run", "main.main"},
			"main, other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chain := []frame{{sym: "do_syscall_64", dso: "[kernel.kallsyms]", kernel: true}}
			for _, sym := range tc.chain {
				chain = append(chain, frame{sym: sym, dso: "/tmp/counter"})
			}
			if got, _ := phaseOf(chain); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
