package audio

import (
	"fmt"
	"sync"

	"github.com/ebitengine/oto/v3"
)

var (
	openMu sync.Mutex
	opened bool
)

// Open starts the output on the default device. It returns an error only
// for invalid options or a second Open in this process (ErrAlreadyOpen):
// a device that fails to open is reported by the returned Output as
// Available=false with the device's error (Report and an Availability
// event), never by a panic. Open does not wait for the device.
func Open(opts Options) (*Output, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	openMu.Lock()
	defer openMu.Unlock()
	if opened {
		return nil, ErrAlreadyOpen
	}
	opened = true
	out := newOutput(o)
	go out.monitor()
	ctx, ready, err := newOtoContext(o)
	if err != nil {
		out.attach(failedDevice{err: err})
		return out, nil
	}
	go func() {
		<-ready
		if err := ctx.Err(); err != nil {
			out.attach(failedDevice{err: err})
			return
		}
		p := ctx.NewPlayer(out.mix)
		// The player's own buffer holds two device periods (oto splits the
		// device buffer in two), so a late refill does not underrun; Stop
		// and Pause mute it, so it adds no latency to silence.
		p.SetBufferSize(int(durationToFrames(o.BufferSize, o.SampleRate)) * bytesPerFrame)
		p.Play()
		out.attach(&otoDevice{ctx: ctx, p: p})
	}()
	return out, nil
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
