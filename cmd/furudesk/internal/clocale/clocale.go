// Package clocale keeps Fyne quiet about the C locale.
//
// Fyne's lang package reads the user's locale in its package init, before
// main runs, even for `furudesk ctl` and `--headless`, which never open a
// window. Its locale reader (github.com/jeandeaual/go-locale) knows that
// "C" and "POSIX" mean no language, but not "C.UTF-8" or "POSIX.UTF-8": it
// hands Fyne the language "C", and Fyne logs "Fyne error: Error parsing
// user locale C" on every start.
//
// Importing this package from main fixes that before Fyne looks: Go
// initializes packages in import-path order among those whose imports are
// done (the spec's package initialization rule), and this package imports
// only os and strings, which go-locale imports too, so it always runs
// before go-locale and hence before fyne.io/fyne/v2/lang. For a C locale
// with a codeset it sets LANGUAGE=en when LANGUAGE is unset: the C locale's
// messages are English, and gettext ignores LANGUAGE in the C locale, so
// nothing else changes.
package clocale

import (
	"os"
	"strings"
)

func init() { Apply(os.Getenv, os.Setenv) }

// Apply sets LANGUAGE=en when the locale that decides messages (the first
// of LC_ALL, LC_MESSAGES, LANG that is set) is C or POSIX with a codeset
// or modifier and LANGUAGE is unset.
func Apply(getenv func(string) string, setenv func(string, string) error) {
	if getenv("LANGUAGE") != "" {
		return
	}
	var loc string
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc = getenv(k); loc != "" {
			break
		}
	}
	base, _, cut := strings.Cut(loc, ".")
	if !cut {
		base, _, cut = strings.Cut(loc, "@")
	}
	if cut && (base == "C" || base == "POSIX") {
		_ = setenv("LANGUAGE", "en") // best effort: at worst Fyne logs its message
	}
}
