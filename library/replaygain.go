package library

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dhowden/tag"
)

// ReplayGain is a track's loudness as its tags state it: the gain in dB
// that brings it to the ReplayGain 2.0 reference level (-18 LUFS), for the
// track alone and for its whole album, and their peaks as linear amplitude
// (1 is full scale; 0 when the tags do not say).
type ReplayGain struct {
	TrackGain float64 `json:"track_gain_db,omitempty"`
	TrackPeak float64 `json:"track_peak,omitempty"`
	HasTrack  bool    `json:"has_track,omitempty"`
	AlbumGain float64 `json:"album_gain_db,omitempty"`
	AlbumPeak float64 `json:"album_peak,omitempty"`
	HasAlbum  bool    `json:"has_album,omitempty"`
}

// GainMode is the ReplayGain setting of a device.
type GainMode string

// The modes. Auto uses the album gain while an album plays in order (see
// the caller) and the track gain otherwise.
const (
	GainOff   GainMode = "off"
	GainTrack GainMode = "track"
	GainAlbum GainMode = "album"
	GainAuto  GainMode = "auto"
)

// DefaultGainMode is the mode of a device that never chose one.
const DefaultGainMode = GainAuto

// ParseGainMode reads a mode by its name; an unknown name is an error that
// lists the names.
func ParseGainMode(s string) (GainMode, error) {
	switch m := GainMode(strings.ToLower(strings.TrimSpace(s))); m {
	case GainOff, GainTrack, GainAlbum, GainAuto:
		return m, nil
	}
	return "", fmt.Errorf("library: the ReplayGain mode must be off, track, album or auto, not %q", s)
}

// Limits on gains taken from tags: a value outside is a broken tag.
const (
	maxGainDB = 64
	maxPeak   = 64
)

// DB is the gain in dB to play the track with in mode. album says that
// the track plays as part of its album (in order, among its album's
// tracks): auto then uses the album gain. A missing album gain falls back
// to the track gain and the other way round; without either the track
// plays as it is. The gain never lifts the track's peak above full scale
// (clipping prevention), so a loud master is never boosted into
// distortion.
func (g ReplayGain) DB(mode GainMode, album bool) float64 {
	useAlbum := false
	switch mode {
	case GainTrack:
	case GainAlbum:
		useAlbum = true
	case GainAuto:
		useAlbum = album
	default:
		return 0
	}
	if useAlbum && !g.HasAlbum || !useAlbum && !g.HasTrack {
		useAlbum = !useAlbum
	}
	db, peak := g.TrackGain, g.TrackPeak
	switch {
	case useAlbum && g.HasAlbum:
		db, peak = g.AlbumGain, g.AlbumPeak
	case !g.HasTrack:
		return 0
	}
	if peak > 0 {
		db = min(db, -20*math.Log10(peak))
	}
	return db
}

// replayGainOf reads the ReplayGain tags of any tag format dhowden/tag
// parses: REPLAYGAIN_* in Vorbis comments, ID3v2 TXXX frames and MP4
// freeform atoms; R128_*_GAIN of Opus (Q7.8 dB relative to -23 LUFS); and
// iTunes' iTunNORM when nothing else is there.
func replayGainOf(m tag.Metadata) ReplayGain {
	vals := map[string]string{}
	for k, v := range m.Raw() {
		switch v := v.(type) {
		case string:
			// dhowden/tag leaves the locale word of MP4 freeform
			// atoms in front of the value: four NULs.
			vals[strings.ToLower(k)] = strings.Trim(v, "\x00 ")
		case *tag.Comm: // ID3v2 TXXX: the description is the key
			if strings.HasPrefix(k, "TXXX") || strings.HasPrefix(k, "TXX") {
				vals[strings.ToLower(strings.Trim(v.Description, "\x00 "))] = strings.Trim(v.Text, "\x00 ")
			}
		}
	}
	return gainOf(vals)
}

// gainOf reads the ReplayGain of tags whose keys are lower case.
func gainOf(vals map[string]string) ReplayGain {
	var g ReplayGain
	if db, ok := parseGainDB(vals["replaygain_track_gain"]); ok {
		g.TrackGain, g.HasTrack = db, true
	} else if q, ok := parseQ78(vals["r128_track_gain"]); ok {
		g.TrackGain, g.HasTrack = q+5, true // -23 LUFS to ReplayGain's -18
	}
	if db, ok := parseGainDB(vals["replaygain_album_gain"]); ok {
		g.AlbumGain, g.HasAlbum = db, true
	} else if q, ok := parseQ78(vals["r128_album_gain"]); ok {
		g.AlbumGain, g.HasAlbum = q+5, true
	}
	if g.HasTrack {
		g.TrackPeak = parsePeak(vals["replaygain_track_peak"])
	}
	if g.HasAlbum {
		g.AlbumPeak = parsePeak(vals["replaygain_album_peak"])
	}
	if !g.HasTrack && !g.HasAlbum {
		g.TrackGain, g.TrackPeak, g.HasTrack = parseITunNORM(vals["itunnorm"])
	}
	return g
}

// parseGainDB reads "-6.48 dB" (the unit is optional).
func parseGainDB(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s, "dB"), "db"))
	s = strings.TrimSpace(strings.TrimSuffix(s, "DB"))
	v, err := strconv.ParseFloat(strings.TrimPrefix(s, "+"), 64)
	if err != nil || math.IsNaN(v) || math.Abs(v) > maxGainDB {
		return 0, false
	}
	return v, true
}

// parseQ78 reads an R128 gain: a signed integer in 1/256 dB.
func parseQ78(s string) (float64, bool) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < -32768 || v > 32767 {
		return 0, false
	}
	return float64(v) / 256, true
}

func parsePeak(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || v <= 0 || v > maxPeak {
		return 0
	}
	return v
}

// parseITunNORM reads iTunes' Sound Check: ten hex words, the first two
// the loudness of the left and right channel in milliwatts relative to
// 1/1000 W, words 7 and 8 the peaks of 16-bit samples.
func parseITunNORM(s string) (db, peak float64, ok bool) {
	f := strings.Fields(s)
	if len(f) < 10 {
		return 0, 0, false
	}
	var w [10]uint64
	for i := range w {
		v, err := strconv.ParseUint(f[i], 16, 32)
		if err != nil {
			return 0, 0, false
		}
		w[i] = v
	}
	loud := max(w[0], w[1])
	if loud == 0 {
		return 0, 0, false
	}
	db = -10 * math.Log10(float64(loud)/1000)
	if math.Abs(db) > maxGainDB {
		return 0, 0, false
	}
	if p := max(w[6], w[7]); p > 0 && p <= 32768*maxPeak {
		peak = float64(p) / 32768
	}
	return db, peak, true
}
