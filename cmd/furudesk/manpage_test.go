package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// manPage is furudesk(1), installed by make deb.
const manPage = "../../packaging/linux/furudesk.1"

// TestManPageNamesEveryFlag keeps furudesk(1) true to the binary: every
// flag --help lists has its own entry under OPTIONS, and the page names
// no flag the binary does not have.
func TestManPageNamesEveryFlag(t *testing.T) {
	var help bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &help); err == nil {
		t.Fatal("-h parsed without flag.ErrHelp")
	}
	have := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z-]*)`).FindAllStringSubmatch(help.String(), -1) {
		have[m[1]] = true
	}
	if len(have) < 10 {
		t.Fatalf("read %d flags from --help:\n%s", len(have), help.String())
	}
	page, err := os.ReadFile(manPage)
	if err != nil {
		t.Fatal(err)
	}
	opts := string(page)
	start, end := strings.Index(opts, ".SH OPTIONS"), strings.Index(opts, ".SH CONTROL")
	if start < 0 || end < start {
		t.Fatal("furudesk.1 has no OPTIONS section followed by CONTROL")
	}
	opts = opts[start:end]
	// An entry is a .TP paragraph whose tag line starts with the flag:
	// ".B \-\-headless" or ".BI \-\-listen " HOST:PORT"".
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\.TP\n\.BI? \\-(?:\\-)?([a-z][a-z\\-]*)`).FindAllStringSubmatch(opts, -1) {
		documented[strings.ReplaceAll(m[1], `\-`, "-")] = true
	}
	for name := range have {
		if !documented[name] {
			t.Errorf("furudesk.1 does not document --%s (add a .TP entry under OPTIONS)", name)
		}
	}
	for name := range documented {
		if !have[name] {
			t.Errorf("furudesk.1 documents --%s, which furudesk does not have", name)
		}
	}
}
