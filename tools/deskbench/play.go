//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// playFormats are the encodings of issue 37's playing cost: what a
// collection holds most, each made by ffmpeg from the same ten minutes of
// tones and noise.
var playFormats = []struct {
	name, file string
	args       []string // ffmpeg's encoder options
}{
	{"MP3", "play.mp3", []string{"-c:a", "libmp3lame", "-q:a", "0"}},
	{"FLAC", "play.flac", []string{"-c:a", "flac"}},
	{"AAC", "play.m4a", []string{"-c:a", "aac", "-b:a", "256k"}},
	{"Opus", "play.opus", []string{"-c:a", "libopus", "-b:a", "160k"}},
	{"Vorbis", "play.ogg", []string{"-c:a", "libvorbis", "-q:a", "6"}},
}

// play is issue 37's benchmark of playing: the headless player's CPU
// while it plays each format to the PulseAudio sink, next to ffmpeg
// playing the same file to the same sink (`ffmpeg -re -i FILE -f pulse`),
// and their ratio (the bound: 1.5). Both are measured over the
// same phase, one after the other, after 3 s of warm-up.
func (b *bench) play() error {
	dir := filepath.Join(b.work, "play")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range playFormats {
		args := append([]string{"-v", "error", "-y", "-f", "lavfi", "-i",
			"aevalsrc=exprs=0.3*sin(2*PI*440*t)+0.1*(random(0)-0.5)|0.3*sin(2*PI*660*t)+0.1*(random(1)-0.5):c=stereo:s=44100:d=600"},
			f.args...)
		out, err := exec.Command("ffmpeg", append(args, filepath.Join(dir, f.file))...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ffmpeg making %s: %v: %s", f.file, err, out)
		}
	}
	h := &device{bin: b.bin, dir: filepath.Join(b.work, "play-data"), env: b.env}
	if err := h.start("--headless", "--music", dir, "--mdns=false"); err != nil {
		return err
	}
	defer func() { _, _ = h.p.term(30 * time.Second) }()
	if err := waitFor("the scan", 2*time.Minute, func() bool {
		st, err := h.status()
		return err == nil && !st.Scan.Running && st.Scan.Found >= len(playFormats)
	}); err != nil {
		return err
	}
	for _, f := range playFormats {
		path := filepath.Join(dir, f.file)
		if _, err := h.ctl("play", path); err != nil {
			return err
		}
		if err := waitFor("the output playing "+f.name, 20*time.Second, func() bool {
			st, err := h.status()
			return err == nil && st.Output.Playing
		}); err != nil {
			return err
		}
		time.Sleep(3 * time.Second)
		ours, err := measure("furudesk playing "+f.name, h.p.pid(), b.phase)
		if err != nil {
			return err
		}
		if _, err := h.ctl("pause"); err != nil {
			return err
		}
		time.Sleep(time.Second)
		theirs, err := b.ffmpegPlaying(f.name, path)
		if err != nil {
			return err
		}
		ratio := 0.0
		if theirs.pct > 0 {
			ratio = ours.pct / theirs.pct
		}
		b.report("%s\n%s\n%-34s %6.2f× ffmpeg's CPU (issue 37: at most 1.5×)", ours, theirs, "ratio "+f.name, ratio)
	}
	return nil
}

// ffmpegPlaying measures ffmpeg playing path to the default PulseAudio
// sink in real time.
func (b *bench) ffmpegPlaying(name, path string) (sample, error) {
	p, err := startProc("ffmpeg", filepath.Join(b.work, "ffmpeg-"+strings.ToLower(name)+".log"), b.env,
		"ffmpeg", "-v", "error", "-nostdin", "-re", "-i", path, "-f", "pulse", "furudesk bench")
	if err != nil {
		return sample{}, err
	}
	defer func() { _, _ = p.term(10 * time.Second) }()
	time.Sleep(3 * time.Second)
	if !p.alive() {
		return sample{}, fmt.Errorf("ffmpeg -f pulse ended at once (see %s)", filepath.Join(b.work, "ffmpeg-"+strings.ToLower(name)+".log"))
	}
	return measure("ffmpeg playing "+name, p.pid(), b.phase)
}
