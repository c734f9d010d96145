package audio

import (
	"sync"
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
	go func() {
		d, err := openDevice(o, out.mix)
		if err != nil {
			out.attach(failedDevice{err: err})
			return
		}
		out.attach(d)
	}()
	return out, nil
}
