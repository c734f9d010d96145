//go:build !darwin

package nowplaying

import (
	"errors"
	"testing"
)

func TestStartElsewhereThanMacOSIsUnsupported(t *testing.T) {
	if _, err := Start(nil, Options{}); !errors.Is(err, ErrNoPlayer) {
		t.Errorf("Start(nil): %v, want ErrNoPlayer", err)
	}
	if _, err := Start(&fakePlayer{}, Options{Main: func(f func()) { f() }}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Start: %v, want ErrUnsupported", err)
	}
}
