package main

import (
	"io"
	"testing"
)

// The always-on box carries others' traffic unless told not to; a
// desktop does only when asked.
func TestCarryFlagDefaults(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--headless"}, true},
		{[]string{"--headless", "--carry=false"}, false},
		{[]string{"--carry"}, true},
	} {
		opts, err := parseFlags(tc.args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if opts.carry != tc.want {
			t.Errorf("%v: carry %v, want %v", tc.args, opts.carry, tc.want)
		}
	}
}
