package config

import (
	"strings"
	"testing"

	"hitcounter/store"
)

func TestMaxDBSizeFromEnv(t *testing.T) {
	tests := []struct {
		value string
		want  int
		bad   bool
	}{
		{"", store.DefaultMaxSize, false},
		{"512MiB", 512 << 20, false},
		{"1GiB", 1 << 30, false},
		{" 64KiB ", 64 << 10, false},
		{"65536", 64 << 10, false},
		{"100 MiB", 100 << 20, false},
		{"63KiB", store.DefaultMaxSize, true},
		{"1GB", store.DefaultMaxSize, true},
		{"1mib", store.DefaultMaxSize, true},
		{"MiB", store.DefaultMaxSize, true},
		{"-1", store.DefaultMaxSize, true},
		{"1.5GiB", store.DefaultMaxSize, true},
		{"99999999999999999999", store.DefaultMaxSize, true},
		{"17179869184TiB", store.DefaultMaxSize, true},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			cfg, errs := FromEnv(Lookup([]string{"COUNTER_MAX_DB_SIZE=" + tc.value}))
			if cfg.MaxDBSize != tc.want || (len(errs) > 0) != tc.bad {
				t.Errorf("MaxDBSize %d, errors %v; want %d, error %v", cfg.MaxDBSize, errs, tc.want, tc.bad)
			}
			if tc.bad && !strings.Contains(errs[0].Error(), "using 1GiB") {
				t.Errorf("error %q does not say what is used instead", errs[0])
			}
		})
	}
}

// TestMaxDBSizeFitsThisPlatform: past 1 GiB a 32-bit process cannot map
// the file, so the setting is refused there.
func TestMaxDBSizeFitsThisPlatform(t *testing.T) {
	_, errs := FromEnv(Lookup([]string{"COUNTER_MAX_DB_SIZE=2GiB"}))
	if refused := len(errs) > 0; refused != (store.LargestMaxSize < 2<<30) {
		t.Errorf("2GiB refused: %v, with a largest size of %s", refused, FormatSize(store.LargestMaxSize))
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "0"},
		{1000, "1000"},
		{64 << 10, "64KiB"},
		{1536 << 10, "1536KiB"},
		{1 << 30, "1GiB"},
	}
	for _, tc := range tests {
		if got := FormatSize(tc.n); got != tc.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestErrorsFromEnv(t *testing.T) {
	tests := []struct {
		value string
		blank bool
		bad   bool
	}{
		{"", false, false},
		{"image", false, false},
		{"blank", true, false},
		{" blank ", true, false},
		{"Blank", false, true},
		{"off", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			cfg, errs := FromEnv(Lookup([]string{"COUNTER_ERRORS=" + tc.value}))
			if cfg.BlankErrors != tc.blank || (len(errs) > 0) != tc.bad {
				t.Errorf("BlankErrors %v, errors %v; want %v, error %v", cfg.BlankErrors, errs, tc.blank, tc.bad)
			}
			if tc.bad && !strings.Contains(errs[0].Error(), "using image") {
				t.Errorf("error %q does not say what is used instead", errs[0])
			}
		})
	}
}
