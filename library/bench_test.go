package library

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dhowden/tag"
	"github.com/furudesk/furudesk/internal/wavfile"
)

// benchFiles is the size of the generated benchmark library.
const benchFiles = 10_000

var (
	benchOnce  sync.Once
	benchDir   string
	benchPaths []string
	benchErr   error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchLibrary generates, once per test binary, 10,000 small tagged files in
// 50 artists × 20 albums × 10 tracks: Go-written WAV with LIST/INFO, and, when
// ffmpeg is present, every fourth file an MP3 made from one ffmpeg template
// with its own ID3v2.3 tag and a unique last byte of audio.
func benchLibrary(b *testing.B) (string, []string) {
	b.Helper()
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "furudesk-bench-")
		if benchErr != nil {
			return
		}
		var mp3Audio []byte
		if _, err := exec.LookPath("ffmpeg"); err == nil {
			tpl := filepath.Join(benchDir, "template.mp3")
			out, err := exec.Command("ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.2", "-b:a", "64k", tpl).CombinedOutput()
			if err != nil {
				benchErr = fmt.Errorf("ffmpeg: %v: %s", err, out)
				return
			}
			raw, err := os.ReadFile(tpl)
			if err != nil {
				benchErr = err
				return
			}
			start, err := skipID3v2(bytes.NewReader(raw), 0, int64(len(raw)))
			if err != nil {
				benchErr = err
				return
			}
			mp3Audio = raw[start:]
			_ = os.Remove(tpl)
		}
		const rate = 8000
		for i := 0; i < benchFiles; i++ {
			artist, album, track := i/200, (i/10)%20, i%10+1
			dir := filepath.Join(benchDir, fmt.Sprintf("Artist %02d", artist), fmt.Sprintf("Album %02d", album))
			if track == 1 {
				if benchErr = os.MkdirAll(dir, 0o755); benchErr != nil {
					return
				}
			}
			title := fmt.Sprintf("Song %d of Tëst %d", track, i)
			var data []byte
			var name string
			if mp3Audio != nil && i%4 == 3 {
				name = fmt.Sprintf("%02d - Song.mp3", track)
				data = append(id3v23(title, fmt.Sprintf("Artist %02d", artist), fmt.Sprintf("Album %02d", album), track), mp3Audio...)
				data[len(data)-8], data[len(data)-9] = byte(i), byte(i>>8)
			} else {
				name = fmt.Sprintf("%02d - Song.wav", track)
				s := make([]int16, rate/20)
				for k := range s {
					s[k] = int16(6000*math.Sin(float64(k)*float64(100+i%900)/rate)) + int16(i%7)
				}
				var buf bytes.Buffer
				if benchErr = wavfile.Write(&buf, rate, 1, s, wavfile.Tags{Title: title, Artist: fmt.Sprintf("Artist %02d", artist), Album: fmt.Sprintf("Album %02d", album), Track: track, Year: 2000 + i%25}); benchErr != nil {
					return
				}
				data = buf.Bytes()
				binary.LittleEndian.PutUint16(data[len(data)-2:], uint16(i))
			}
			p := filepath.Join(dir, name)
			if benchErr = os.WriteFile(p, data, 0o644); benchErr != nil {
				return
			}
			benchPaths = append(benchPaths, p)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir, benchPaths
}

// id3v23 builds an ID3v2.3 tag with Latin-1 text frames.
func id3v23(title, artist, album string, track int) []byte {
	var body []byte
	frame := func(id, v string) {
		body = append(body, id...)
		body = binary.BigEndian.AppendUint32(body, uint32(len(v)+1))
		body = append(body, 0, 0, 0)
		body = append(body, v...)
	}
	frame("TIT2", strings.ReplaceAll(title, "ë", "e"))
	frame("TPE1", artist)
	frame("TALB", album)
	frame("TRCK", strconv.Itoa(track))
	n := len(body)
	h := []byte{'I', 'D', '3', 3, 0, 0, byte(n >> 21 & 0x7f), byte(n >> 14 & 0x7f), byte(n >> 7 & 0x7f), byte(n & 0x7f)}
	return append(h, body...)
}

// peakRSS returns the process's peak resident set (VmHWM) in MiB, or -1.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err == nil {
				return float64(kb) / 1024
			}
		}
	}
	return -1
}

// resetPeakRSS makes VmHWM start again from the current RSS (Linux).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func BenchmarkScanCold(b *testing.B) {
	root, paths := benchLibrary(b)
	resetPeakRSS()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		idx := NewMemIndex()
		res, err := Scan(context.Background(), idx, []string{root}, ScanOptions{})
		if err != nil || res.Added != len(paths) {
			b.Fatalf("scan: %v %+v", err, res)
		}
	}
	b.ReportMetric(float64(len(paths)*b.N)/b.Elapsed().Seconds(), "files/s")
	b.ReportMetric(peakRSS(), "peakRSS-MiB")
}

func BenchmarkScanWarm(b *testing.B) {
	root, paths := benchLibrary(b)
	idx := NewMemIndex()
	if _, err := Scan(context.Background(), idx, []string{root}, ScanOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Scan(context.Background(), idx, []string{root}, ScanOptions{})
		if err != nil || res.Unchanged != len(paths) {
			b.Fatalf("scan: %v %+v", err, res)
		}
	}
	b.ReportMetric(float64(len(paths)*b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkTagsOnlyLoop is the practical limit for a cold scan: one
// goroutine opening each file and reading its tags, nothing else (dhowden/tag
// for MP3, the RIFF INFO reader for WAV, which dhowden/tag cannot read).
func BenchmarkTagsOnlyLoop(b *testing.B) {
	_, paths := benchLibrary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range paths {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			if strings.HasSuffix(p, ".wav") {
				st, _ := f.Stat()
				if _, err := parseWAV(f, st.Size()); err != nil {
					b.Fatal(err)
				}
			} else if _, err := tag.ReadFrom(f); err != nil && err != io.EOF {
				b.Fatal(err)
			}
			f.Close()
		}
	}
	b.ReportMetric(float64(len(paths)*b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkWatcherLatency measures, on the 10,000-file library, the time from
// the end of a file rewrite to its Changed event (default 150 ms debounce).
func BenchmarkWatcherLatency(b *testing.B) {
	root, paths := benchLibrary(b)
	idx := NewMemIndex()
	if _, err := Scan(context.Background(), idx, []string{root}, ScanOptions{}); err != nil {
		b.Fatal(err)
	}
	w, err := Watch(context.Background(), idx, []string{root}, WatchOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := paths[(i*37)%len(paths)]
		if !strings.HasSuffix(p, ".wav") {
			p = paths[(i*37+1)%len(paths)]
		}
		var buf bytes.Buffer
		s := make([]int16, 400)
		for k := range s {
			s[k] = int16(k * i)
		}
		if err := wavfile.Write(&buf, 8000, 1, s, wavfile.Tags{Title: fmt.Sprint("changed ", i)}); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		written := time.Now()
		deadline := time.After(30 * time.Second)
	wait:
		for {
			select {
			case e := <-w.Events():
				if e.Kind == Changed && e.Track.Path == p {
					lat = append(lat, time.Since(written))
					break wait
				}
			case <-deadline:
				b.Fatal("no event")
			}
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkSearch runs typed-as-you-go queries over the 10,000 tracks of a
// MemIndex (the Normalize-based reference search) and reports p95 latency.
func BenchmarkSearch(b *testing.B) {
	root, _ := benchLibrary(b)
	idx := NewMemIndex()
	if _, err := Scan(context.Background(), idx, []string{root}, ScanOptions{}); err != nil {
		b.Fatal(err)
	}
	queries := []string{"s", "so", "son", "song", "song 3", "TEST", "tëst 99", "artist 07", "album 1", "artist 12 album 05", "zzz", "SONG 7 OF", "é", "test 4242"}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		t0 := time.Now()
		_ = idx.Search(q, 200)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkWatchTreeSpans10k starts watching a collection of 10,000
// folders (2,000 artists of 5 albums) and reports the Go heap the watcher
// holds once the walk's garbage is collected (heap-MB: spans in use;
// live-MB: its objects). The gap is the walk's garbage that the kept
// folder names keep from going back to the system.
func BenchmarkWatchTreeSpans10k(b *testing.B) {
	root := b.TempDir()
	for a := range 2000 {
		for al := range 5 {
			if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("Artist %d", a), fmt.Sprintf("Album %d of artist %d", al, a)), 0o755); err != nil {
				b.Fatal(err)
			}
		}
	}
	for range b.N {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		w, err := Watch(context.Background(), NewMemIndex(), []string{root}, WatchOptions{})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.HeapInuse-m0.HeapInuse)/(1<<20), "heap-MB")
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/(1<<20), "live-MB")
		_ = w.Close()
	}
}
