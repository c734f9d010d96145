//go:build !linux || !cgo || oto

package audio

import (
	"fmt"
	"time"

	"github.com/ebitengine/oto/v3"
)

// defaultBufferSize is Options.BufferSize's default with oto: its writes
// cannot be cut, so a Pause or Stop is heard after the device buffer.
const defaultBufferSize = 40 * time.Millisecond

// The output of macOS and Windows (and of Linux built with -tags oto):
// one always-playing oto player reading the mixer. On Linux alsa_linux.go
// replaces it (see there for why).

// openDevice opens the default device for o and starts pulling from src;
// it blocks until the device is open (or failed).
func openDevice(o Options, src *mixer) (device, error) {
	ctx, ready, err := newOtoContext(o)
	if err != nil {
		return nil, err
	}
	<-ready
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := ctx.NewPlayer(src)
	// The player's own buffer holds two device periods (oto splits the
	// device buffer in two), so a late refill does not underrun; Stop
	// and Pause mute it, so it adds no latency to silence.
	p.SetBufferSize(int(durationToFrames(o.BufferSize, o.SampleRate)) * bytesPerFrame)
	p.Play()
	return &otoDevice{ctx: ctx, p: p}, nil
}

// newOtoContext creates the process's oto context, turning a panic into an
// error.
func newOtoContext(o Options) (ctx *oto.Context, ready chan struct{}, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("audio: creating the oto context panicked: %v", r)
		}
	}()
	return oto.NewContext(&oto.NewContextOptions{
		SampleRate:   o.SampleRate,
		ChannelCount: 2,
		Format:       oto.FormatSignedInt16LE,
		BufferSize:   o.BufferSize,
	})
}

// otoDevice is the real device: one always-playing oto player reading the
// mixer.
type otoDevice struct {
	ctx *oto.Context
	p   *oto.Player
}

func (d *otoDevice) Err() error {
	if err := d.ctx.Err(); err != nil {
		return err
	}
	return d.p.Err()
}

func (d *otoDevice) Buffered() int     { return d.p.BufferedSize() }
func (d *otoDevice) SetGain(g float64) { d.p.SetVolume(g) }
func (d *otoDevice) Suspend() error    { return d.ctx.Suspend() }
func (d *otoDevice) Resume() error     { return d.ctx.Resume() }
func (d *otoDevice) Close() {
	d.p.Pause()
	// Close only errors with the player's earlier read error, which Err
	// already reported.
	_ = d.p.Close()
}
