package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/storage"
)

// --mdns-exclude is kept for the launches without it (a window started
// from the desktop), an empty value clears it, and a bad pattern is
// refused with the flag's name, keeping the stored list.
func TestMDNSExcludeIsKept(t *testing.T) {
	st, err := storage.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	check := func(flag []string, given bool, want ...string) {
		t.Helper()
		got, err := mdnsExclude(st, flag, given)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("mdnsExclude(%q, %v) = %q, %v; want %q", flag, given, got, err, want)
		}
	}
	check(nil, false)
	check([]string{"tun0", "docker*, wg0"}, true, "tun0", "docker*", "wg0")
	check(nil, false, "tun0", "docker*", "wg0")
	if _, err := mdnsExclude(st, []string{"tun["}, true); err == nil || !strings.HasPrefix(err.Error(), "--mdns-exclude: ") {
		t.Fatalf("bad pattern: %v", err)
	}
	check(nil, false, "tun0", "docker*", "wg0")
	check([]string{""}, true)
	check(nil, false)
}
