// Package formats is the one list of the audio files furudesk accepts:
// each container with its file extensions, MIME types, the FFmpeg
// demuxer that reads it and the FFmpeg decoders of the codecs a music
// collection holds in it, and how to tell it from its first bytes.
//
// Everything that needs to know what furudesk plays reads it from here:
// the scan (which names it looks at), the decoders (which demuxer to
// force), the group library (the extension of a catalog format), the
// FFmpeg build (scripts/build-ffmpeg.sh takes its demuxers, decoders and
// parsers from `go run ./formats/list`), the Linux desktop file and the
// Windows installer (the MIME types and extensions). It imports only the
// standard library.
package formats

import (
	"bytes"
	"sort"
	"strings"
)

// Container is one kind of audio file.
type Container struct {
	// Name is what the library stores as a track's format ("flac") and
	// what peers exchange in catalogs: never renamed.
	Name string
	// Label names it for users ("WavPack").
	Label string
	// Exts are its file extensions, lower case with the dot; the first is
	// the one a file of this format is given (a download's cache name).
	Exts []string
	// MIME are its media types, the registered one first.
	MIME []string
	// Demuxer is the name of FFmpeg's demuxer that reads it.
	Demuxer string
	// Decoders are FFmpeg's decoders of the codecs found in it (a trailing
	// * is a prefix: "pcm_*").
	Decoders []string
	// Parsers are FFmpeg's parsers those codecs need in it.
	Parsers []string
}

// The codecs, as FFmpeg's decoders, shared by several containers.
var (
	mpegAudio = []string{"mp3", "mp3float", "mp2", "mp2float", "mp1", "mp1float", "mp3adu", "mp3adufloat", "mp3on4", "mp3on4float"}
	aac       = []string{"aac", "aac_fixed", "aac_latm"}
	pcm       = []string{"pcm_*", "adpcm_*"}
	dolby     = []string{"ac3", "ac3_fixed", "eac3", "truehd", "mlp", "dca"}
	wma       = []string{"wmav1", "wmav2", "wmapro", "wmalossless", "wmavoice"}
	dsd       = []string{"dsd_lsbf", "dsd_msbf", "dsd_lsbf_planar", "dsd_msbf_planar"}
)

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// All is every container furudesk accepts, in the order Detect tries
// them. Its entries are read only.
var All = []Container{
	{Name: "mp3", Label: "MP3", Exts: []string{".mp3", ".mp2", ".mp1", ".mpga"},
		MIME:    []string{"audio/mpeg", "audio/mp3", "audio/x-mp3", "audio/x-mpeg", "audio/mpeg3", "audio/x-mp2"},
		Demuxer: "mp3", Decoders: mpegAudio, Parsers: []string{"mpegaudio"}},
	{Name: "ogg", Label: "Ogg (Vorbis, FLAC, Speex)", Exts: []string{".ogg", ".oga", ".spx", ".ogx"},
		MIME:    []string{"audio/ogg", "audio/x-vorbis+ogg", "audio/vorbis", "audio/x-vorbis", "audio/x-flac+ogg", "audio/x-speex", "audio/x-speex+ogg", "application/ogg"},
		Demuxer: "ogg", Decoders: []string{"vorbis", "flac", "speex", "opus"}, Parsers: []string{"vorbis", "flac", "opus"}},
	{Name: "opus", Label: "Opus", Exts: []string{".opus"},
		MIME:    []string{"audio/opus", "audio/x-opus+ogg"},
		Demuxer: "ogg", Decoders: []string{"opus"}, Parsers: []string{"opus"}},
	{Name: "flac", Label: "FLAC", Exts: []string{".flac"},
		MIME:    []string{"audio/flac", "audio/x-flac"},
		Demuxer: "flac", Decoders: []string{"flac"}, Parsers: []string{"flac"}},
	{Name: "wav", Label: "WAV", Exts: []string{".wav", ".wave", ".bwf", ".rf64"},
		MIME:    []string{"audio/wav", "audio/x-wav", "audio/vnd.wave", "audio/wave"},
		Demuxer: "wav", Decoders: join(pcm, mpegAudio, aac, dolby, []string{"gsm_ms", "gsm", "g722", "g726", "g726le", "g723_1", "g729", "truespeech", "wmav2"}), Parsers: []string{"mpegaudio", "ac3", "dca"}},
	{Name: "m4a", Label: "MPEG-4 audio (AAC, ALAC)", Exts: []string{".m4a", ".m4b", ".m4p", ".mp4", ".m4r", ".3ga", ".3gp"},
		MIME:    []string{"audio/mp4", "audio/x-m4a", "audio/m4a", "audio/x-m4b", "audio/x-m4p", "audio/3gpp"},
		Demuxer: "mov", Decoders: join(aac, []string{"alac", "als", "opus", "flac", "amrnb", "amrwb", "qcelp"}, mpegAudio, dolby, pcm), Parsers: []string{"aac", "aac_latm", "ac3", "mlp", "mpegaudio", "opus", "flac"}},
	{Name: "aiff", Label: "AIFF", Exts: []string{".aiff", ".aif", ".aifc"},
		MIME:    []string{"audio/aiff", "audio/x-aiff"},
		Demuxer: "aiff", Decoders: join(pcm, []string{"mace3", "mace6", "qdm2", "qdmc", "gsm"})},
	{Name: "aac", Label: "AAC (ADTS)", Exts: []string{".aac", ".adts"},
		MIME:    []string{"audio/aac", "audio/x-aac", "audio/aacp", "audio/x-hx-aac-adts"},
		Demuxer: "aac", Decoders: aac, Parsers: []string{"aac"}},
	{Name: "mka", Label: "Matroska/WebM audio", Exts: []string{".mka", ".webm", ".weba"},
		MIME:    []string{"audio/x-matroska", "audio/webm"},
		Demuxer: "matroska", Decoders: join([]string{"opus", "vorbis", "flac", "alac", "wavpack", "tta"}, aac, mpegAudio, dolby, pcm), Parsers: []string{"opus", "vorbis", "flac", "aac", "ac3", "mlp", "mpegaudio", "dca"}},
	{Name: "caf", Label: "Core Audio Format", Exts: []string{".caf"},
		MIME:    []string{"audio/x-caf"},
		Demuxer: "caf", Decoders: join([]string{"alac", "opus", "flac"}, aac, mpegAudio, pcm)},
	{Name: "wv", Label: "WavPack", Exts: []string{".wv"},
		MIME:    []string{"audio/x-wavpack", "audio/wavpack"},
		Demuxer: "wv", Decoders: []string{"wavpack"}},
	{Name: "wma", Label: "Windows Media Audio", Exts: []string{".wma", ".asf"},
		MIME:    []string{"audio/x-ms-wma", "audio/x-ms-asf"},
		Demuxer: "asf", Decoders: join(wma, mpegAudio)},
	{Name: "w64", Label: "Sony Wave64", Exts: []string{".w64"},
		MIME:    []string{"audio/x-w64"},
		Demuxer: "w64", Decoders: pcm},
	{Name: "ape", Label: "Monkey's Audio", Exts: []string{".ape"},
		MIME:    []string{"audio/x-ape", "audio/ape"},
		Demuxer: "ape", Decoders: []string{"ape"}},
	{Name: "tta", Label: "True Audio", Exts: []string{".tta"},
		MIME:    []string{"audio/x-tta", "audio/tta"},
		Demuxer: "tta", Decoders: []string{"tta"}},
	{Name: "mpc", Label: "Musepack", Exts: []string{".mpc", ".mp+", ".mpp"},
		MIME:    []string{"audio/x-musepack", "audio/musepack"},
		Demuxer: "mpc", Decoders: []string{"mpc7"}},
	{Name: "mpc8", Label: "Musepack SV8", Exts: []string{".mpc"},
		MIME:    []string{"audio/x-musepack"},
		Demuxer: "mpc8", Decoders: []string{"mpc8"}},
	{Name: "dsf", Label: "DSD (DSF)", Exts: []string{".dsf"},
		MIME:    []string{"audio/x-dsf", "audio/dsf"},
		Demuxer: "dsf", Decoders: dsd},
	{Name: "dff", Label: "DSD (DSDIFF)", Exts: []string{".dff"},
		MIME:    []string{"audio/x-dff", "audio/dff"},
		Demuxer: "iff", Decoders: join(dsd, []string{"dst"})},
	{Name: "au", Label: "Sun AU", Exts: []string{".au", ".snd"},
		MIME:    []string{"audio/basic", "audio/x-au"},
		Demuxer: "au", Decoders: pcm},
	{Name: "ac3", Label: "AC-3", Exts: []string{".ac3"},
		MIME:    []string{"audio/ac3", "audio/x-ac3"},
		Demuxer: "ac3", Decoders: []string{"ac3", "ac3_fixed"}, Parsers: []string{"ac3"}},
	{Name: "eac3", Label: "E-AC-3", Exts: []string{".eac3", ".ec3"},
		MIME:    []string{"audio/eac3", "audio/x-eac3"},
		Demuxer: "eac3", Decoders: []string{"eac3"}, Parsers: []string{"ac3"}},
	{Name: "dts", Label: "DTS", Exts: []string{".dts"},
		MIME:    []string{"audio/vnd.dts", "audio/x-dts"},
		Demuxer: "dts", Decoders: []string{"dca"}, Parsers: []string{"dca"}},
	{Name: "shn", Label: "Shorten", Exts: []string{".shn"},
		MIME:    []string{"audio/x-shorten"},
		Demuxer: "shorten", Decoders: []string{"shorten"}},
	{Name: "tak", Label: "TAK", Exts: []string{".tak"},
		MIME:    []string{"audio/x-tak"},
		Demuxer: "tak", Decoders: []string{"tak"}, Parsers: []string{"tak"}},
	{Name: "amr", Label: "AMR", Exts: []string{".amr", ".awb"},
		MIME:    []string{"audio/amr", "audio/amr-wb", "audio/x-amr"},
		Demuxer: "amr", Decoders: []string{"amrnb", "amrwb"}},
}

// ByName is the container named name (a Track's format), nil for none.
func ByName(name string) *Container {
	for i := range All {
		if All[i].Name == name {
			return &All[i]
		}
	}
	return nil
}

// ByExt is the first container that file names ending in ext (".FLAC" or
// ".flac") have, nil for none.
func ByExt(ext string) *Container {
	ext = strings.ToLower(ext)
	for i := range All {
		for _, e := range All[i].Exts {
			if e == ext {
				return &All[i]
			}
		}
	}
	return nil
}

// Ext is the extension a file of the container named name is given
// ("flac" → ".flac"), "" for a name that is none.
func Ext(name string) string {
	if c := ByName(name); c != nil {
		return c.Exts[0]
	}
	return ""
}

// Extensions is every extension of All, sorted, each once.
func Extensions() []string {
	return collect(func(c Container) []string { return c.Exts })
}

// MIMETypes is every MIME type of All, sorted, each once: a desktop
// entry's MimeType.
func MIMETypes() []string {
	return collect(func(c Container) []string { return c.MIME })
}

// Demuxers is every FFmpeg demuxer of All, sorted, each once.
func Demuxers() []string {
	return collect(func(c Container) []string { return []string{c.Demuxer} })
}

// Decoders is every FFmpeg decoder of All, sorted, each once.
func Decoders() []string {
	return collect(func(c Container) []string { return c.Decoders })
}

// Parsers is every FFmpeg parser of All, sorted, each once.
func Parsers() []string {
	return collect(func(c Container) []string { return c.Parsers })
}

func collect(of func(Container) []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range All {
		for _, s := range of(c) {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// HeadLen is how many of a file's first bytes Detect needs.
const HeadLen = 64

// Detect names the container whose content starts with head (the first
// HeadLen bytes, after an ID3v2 tag where there is one), or "" when it is
// none it knows. It looks at the content only: a WavPack file named .mp3
// is "wv". MPEG audio, ADTS AAC, AC-3 and DTS have no magic of their own,
// only a frame's sync word, so they are told last.
func Detect(head []byte) string {
	b := head
	has := func(off int, magic string) bool {
		return len(b) >= off+len(magic) && string(b[off:off+len(magic)]) == magic
	}
	switch {
	case (has(0, "RIFF") || has(0, "RF64") || has(0, "BW64")) && has(8, "WAVE"):
		return "wav"
	case has(0, "riff\x2e\x91\xcf\x11"):
		return "w64"
	case has(0, "fLaC"):
		return "flac"
	case has(0, "FORM") && (has(8, "AIFF") || has(8, "AIFC")):
		return "aiff"
	case has(0, "FRM8") && has(12, "DSD "):
		return "dff"
	case has(0, "OggS"):
		if bytes.Contains(b, []byte("OpusHead")) {
			return "opus"
		}
		return "ogg"
	case has(4, "ftyp"):
		return "m4a"
	case has(0, "\x1a\x45\xdf\xa3"):
		return "mka"
	case has(0, "caff"):
		return "caf"
	case has(0, "wvpk"):
		return "wv"
	case has(0, "\x30\x26\xb2\x75\x8e\x66\xcf\x11"):
		return "wma"
	case has(0, "MAC "):
		return "ape"
	case has(0, "TTA1"):
		return "tta"
	case has(0, "MP+"):
		return "mpc"
	case has(0, "MPCK"):
		return "mpc8"
	case has(0, "DSD "):
		return "dsf"
	case has(0, ".snd"):
		return "au"
	case has(0, "ajkg"):
		return "shn"
	case has(0, "tBaK"):
		return "tak"
	case has(0, "#!AMR"):
		return "amr"
	case len(b) >= 2 && IsMPEGAudioSync(b[0], b[1]):
		return "mp3"
	case len(b) >= 2 && IsADTSSync(b[0], b[1]):
		return "aac"
	case len(b) >= 6 && b[0] == 0x0b && b[1] == 0x77:
		// bsid, the top five bits of the sixth byte: 0-10 AC-3, 11-16 E-AC-3.
		if b[5]>>3 > 10 {
			return "eac3"
		}
		return "ac3"
	case has(0, "\x7f\xfe\x80\x01"):
		return "dts"
	}
	return ""
}

// IsMPEGAudioSync reports an MPEG audio frame header: 11 sync bits, a
// valid version and a layer that is not "reserved".
func IsMPEGAudioSync(b0, b1 byte) bool {
	return b0 == 0xff && b1&0xe0 == 0xe0 && b1&0x18 != 0x08 && b1&0x06 != 0
}

// IsADTSSync reports an ADTS (raw AAC) frame header: 12 sync bits and the
// layer bits MPEG audio never has.
func IsADTSSync(b0, b1 byte) bool {
	return b0 == 0xff && b1&0xf6 == 0xf0
}
