package audio

import (
	"fmt"
	"time"
)

// DamageError reports a track that played with damage, without failing:
// the decoder skipped packets it could not decode (as ffmpeg does) and
// played on, or the track ended well before the length its header
// declares (a file cut short, or its end lost to damage).
type DamageError struct {
	Skipped  int           // packets and frames the decoder skipped
	Played   time.Duration // where it ended, when it ended short; 0 otherwise
	Declared time.Duration // the length its header declares, when it ended short
}

func (e *DamageError) Error() string {
	switch {
	case e.Played > 0 && e.Skipped > 0:
		return fmt.Sprintf("damaged audio: %d undecodable frames skipped, and it ends after %s of %s",
			e.Skipped, clock(e.Played), clock(e.Declared))
	case e.Played > 0:
		return fmt.Sprintf("damaged audio: it ends after %s of %s", clock(e.Played), clock(e.Declared))
	}
	return fmt.Sprintf("damaged audio: %d undecodable frames skipped", e.Skipped)
}

// clock writes d as m:ss.s.
func clock(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	return fmt.Sprintf("%d:%04.1f", int(d/time.Minute), (d % time.Minute).Seconds())
}

// minShort is how much shorter than its header says a track must end to
// count as cut short: headers of a few encoders round their length.
const minShort = time.Second

// skipCounter is a pcmReader that skips damage (FFmpeg's).
type skipCounter interface{ skipped() int }

// Damage tells what the decoder passed over so far: nil when nothing.
// Called at the end (Read returned io.EOF), it also tells a track that
// ended more than a second before its header's length.
func (d *Decoder) Damage(atEnd bool) *DamageError {
	var e DamageError
	if s, ok := d.pcm.(skipCounter); ok {
		e.Skipped = s.skipped()
	}
	if atEnd && d.info.Frames > 0 && d.info.SampleRate > 0 {
		played := framesToDuration(d.pos, d.info.SampleRate)
		declared := framesToDuration(d.info.Frames, d.info.SampleRate)
		if declared-played > minShort {
			e.Played, e.Declared = max(played, time.Millisecond), declared
		}
	}
	if e.Skipped == 0 && e.Played == 0 {
		return nil
	}
	return &e
}
