package clocale

import "testing"

func TestApply(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"LANG": "C.UTF-8"}, "en"},
		{map[string]string{"LANG": "POSIX.utf8"}, "en"},
		{map[string]string{"LC_ALL": "C.UTF-8", "LANG": "de_DE.UTF-8"}, "en"},
		{map[string]string{"LC_ALL": "de_DE.UTF-8", "LANG": "C.UTF-8"}, ""},
		{map[string]string{"LANG": "C"}, ""}, // go-locale handles plain C itself
		{map[string]string{"LANG": "fr_FR.UTF-8"}, ""},
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, "fr"},
		{map[string]string{}, ""},
	} {
		env := map[string]string{}
		for k, v := range c.env {
			env[k] = v
		}
		Apply(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
		if got := env["LANGUAGE"]; got != c.want {
			t.Errorf("%v: LANGUAGE=%q, want %q", c.env, got, c.want)
		}
	}
}
