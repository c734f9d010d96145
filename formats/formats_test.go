package formats

import (
	"strings"
	"testing"
)

func TestEveryContainerIsComplete(t *testing.T) {
	names := map[string]bool{}
	for _, c := range All {
		if c.Name == "" || names[c.Name] {
			t.Errorf("%q: empty or repeated name", c.Name)
		}
		names[c.Name] = true
		if c.Label == "" || c.Demuxer == "" || len(c.Decoders) == 0 || len(c.Exts) == 0 || len(c.MIME) == 0 {
			t.Errorf("%s: a field is empty: %+v", c.Name, c)
		}
		for _, e := range c.Exts {
			if !strings.HasPrefix(e, ".") || strings.ToLower(e) != e {
				t.Errorf("%s: extension %q is not lower case with its dot", c.Name, e)
			}
		}
		for _, m := range c.MIME {
			if !strings.Contains(m, "/") || strings.ContainsAny(m, "; ") {
				t.Errorf("%s: MIME type %q", c.Name, m)
			}
		}
		if ByName(c.Name) == nil || Ext(c.Name) != c.Exts[0] {
			t.Errorf("%s: ByName or Ext does not find it", c.Name)
		}
	}
}

func TestTheNamesStoredBeforeKeepTheirExtensions(t *testing.T) {
	// Libraries and peers' catalogs hold these names: a renamed one would
	// drop their tracks.
	for _, name := range []string{"mp3", "ogg", "opus", "flac", "wav", "m4a", "aiff"} {
		if Ext(name) != "."+name {
			t.Errorf("Ext(%q) = %q", name, Ext(name))
		}
	}
	if Ext("doc") != "" || ByExt(".doc") != nil {
		t.Error("a document is a format")
	}
}

func TestEveryExtensionLeadsToAContainer(t *testing.T) {
	for _, e := range Extensions() {
		if ByExt(e) == nil || ByExt(strings.ToUpper(e)) == nil {
			t.Errorf("ByExt(%q) is nil", e)
		}
	}
	if c := ByExt(".WV"); c == nil || c.Name != "wv" {
		t.Errorf("ByExt(.WV) = %v", c)
	}
}

// heads are the first bytes of a file of each container, as the tools
// that write them write them.
var heads = map[string]string{
	"wav":  "RIFF\x24\x00\x00\x00WAVEfmt ",
	"w64":  "riff\x2e\x91\xcf\x11\xa5\xd6\x28\xdb\x04\xc1\x00\x00",
	"flac": "fLaC\x00\x00\x00\x22",
	"aiff": "FORM\x00\x00\x10\x00AIFFCOMM",
	"dff":  "FRM8\x00\x00\x00\x00\x00\x00\x10\x00DSD ",
	"ogg":  "OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x1e\x01vorbis",
	"opus": "OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x13OpusHead",
	"m4a":  "\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00",
	"mka":  "\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01",
	"caf":  "caff\x00\x01\x00\x00desc",
	"wv":   "wvpk\x2a\x00\x00\x00\x10\x04",
	"wma":  "\x30\x26\xb2\x75\x8e\x66\xcf\x11\xa6\xd9\x00\xaa\x00\x62\xce\x6c",
	"ape":  "MAC \x96\x0f\x00\x00",
	"tta":  "TTA1\x01\x00\x02\x00",
	"mpc":  "MP+\x17\x00\x00\x00\x00",
	"mpc8": "MPCKSH\x0a",
	"dsf":  "DSD \x1c\x00\x00\x00",
	"au":   ".snd\x00\x00\x00\x18",
	"shn":  "ajkg\x02\x00",
	"tak":  "tBaK\x00\x00",
	"amr":  "#!AMR\n\x3c",
	"mp3":  "\xff\xfb\x90\x64\x00",
	"aac":  "\xff\xf1\x50\x80\x02\x1f\xfc",
	"ac3":  "\x0b\x77\x4e\x1e\x14\x40\x43",
	"eac3": "\x0b\x77\x01\xff\x3f\x86\xff",
	"dts":  "\x7f\xfe\x80\x01\xfc\x3c",
}

func TestDetectTellsEveryContainerByItsContent(t *testing.T) {
	for _, c := range All {
		head, ok := heads[c.Name]
		if !ok {
			t.Errorf("%s: no head to detect in this test", c.Name)
			continue
		}
		if got := Detect([]byte(head)); got != c.Name {
			t.Errorf("Detect(head of %s) = %q", c.Name, got)
		}
	}
	for _, junk := range []string{"", "\x00\x00\x00\x00", "<html>", "PK\x03\x04", "RIFF\x00\x00\x00\x00AVI ", "\xff\xd8\xff\xe0"} {
		if got := Detect([]byte(junk)); got != "" {
			t.Errorf("Detect(%q) = %q", junk, got)
		}
	}
}

func TestTheListsAreSortedAndEachOnce(t *testing.T) {
	for name, l := range map[string][]string{"Demuxers": Demuxers(), "Decoders": Decoders(), "Parsers": Parsers(),
		"Extensions": Extensions(), "MIMETypes": MIMETypes()} {
		for i := 1; i < len(l); i++ {
			if l[i-1] >= l[i] {
				t.Errorf("%s: %q before %q", name, l[i-1], l[i])
			}
		}
	}
	if !contains(Demuxers(), "wv") || !contains(Decoders(), "wavpack") || !contains(MIMETypes(), "audio/flac") {
		t.Error("a container's demuxer, decoder or MIME type is not listed")
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
