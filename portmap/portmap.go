// Package portmap keeps this device's listening port mapped on the home
// router while the user wants it (Settings › Map my port on the router,
// `ctl portmap on`, --portmap): NAT-PMP first (one UDP exchange with the
// gateway), then UPnP-IGD (SSDP discovery, WANIPConnection). The mapped
// address reaches devicesync (SetMapped) so it goes into the profile and
// the invites, the lease is renewed at half its life, and it is removed
// when the user turns mapping off or the app quits. Status says what the
// router answered, for ctl status and the log.
package portmap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"
)

// Lifetime is the lease asked of the router; it is renewed at half.
const Lifetime = 2 * time.Hour

// Retry bounds: after a failure the mapper asks again after retryMin,
// doubling to retryMax.
const (
	retryMin = 30 * time.Second
	retryMax = 30 * time.Minute
)

// Protocol is one way of asking a router for a mapping (NAT-PMP, UPnP).
type Protocol interface {
	// Name is shown in the status: "NAT-PMP", "UPnP-IGD".
	Name() string
	// Map asks the router to forward TCP external port → this device's
	// port for lifetime; it returns the external address (ip:port) and
	// the lifetime the router granted.
	Map(ctx context.Context, port int, lifetime time.Duration) (external string, granted time.Duration, err error)
	// Unmap removes the mapping Map made.
	Unmap(ctx context.Context, port int) error
}

// Status is what the mapper did last, for ctl status and the Devices
// page.
type Status struct {
	On bool `json:"on"`
	// Method is the protocol that mapped the port ("" when none did).
	Method string `json:"method,omitempty"`
	// External is the mapped address, ip:port ("" when not mapped).
	External string `json:"external,omitempty"`
	// Answer is what the router answered last, in words: "mapped
	// 11.0.0.20:7400 for 2h0m0s", or why not.
	Answer string    `json:"answer,omitempty"`
	Until  time.Time `json:"until,omitzero"`
}

// Next is when to ask again after a result: at half the granted lifetime
// (but not sooner than a minute), or after a failure the retry delay
// doubled from retryMin to retryMax (failures counts the failures in a
// row, 1 for the first). Pure.
func Next(granted time.Duration, failures int) time.Duration {
	if failures == 0 {
		return max(granted/2, time.Minute)
	}
	d := retryMin
	for i := 1; i < failures && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

// Mapper keeps one port mapped while on. Create it with New; its methods
// are safe for concurrent use.
type Mapper struct {
	port   int
	protos []Protocol
	set    func(addrs []string)
	log    *slog.Logger

	mu       sync.Mutex
	st       Status
	mapped   Protocol // the protocol holding the mapping now
	failures int
	cancel   context.CancelFunc
	done     chan struct{}
	onChange func()
}

// New returns a mapper of port, off. set receives the mapped addresses
// (nil when the mapping is gone); protos are tried in order (nil:
// NAT-PMP, then UPnP-IGD).
func New(port int, set func(addrs []string), log *slog.Logger, protos ...Protocol) *Mapper {
	if protos == nil {
		protos = []Protocol{NATPMP{}, UPnP{}}
	}
	if log == nil {
		log = slog.Default()
	}
	return &Mapper{port: port, protos: protos, set: set, log: log}
}

// OnChange makes f run after each change of Status (f must not block; nil:
// none). The app republishes its status with it, so Settings shows what
// the router answered as soon as it did.
func (m *Mapper) OnChange(f func()) {
	m.mu.Lock()
	m.onChange = f
	m.mu.Unlock()
}

// changed runs the OnChange function.
func (m *Mapper) changed() {
	m.mu.Lock()
	f := m.onChange
	m.mu.Unlock()
	if f != nil {
		f()
	}
}

// SetOn turns mapping on (the port is mapped in the background, and kept)
// or off (the mapping is removed before SetOn returns).
func (m *Mapper) SetOn(on bool) {
	m.mu.Lock()
	if on && m.cancel != nil {
		m.mu.Unlock()
		return
	}
	if on {
		ctx, cancel := context.WithCancel(context.Background())
		m.cancel, m.done = cancel, make(chan struct{})
		m.st = Status{On: true, Answer: "asking the router"}
		done := m.done
		m.mu.Unlock()
		go m.loop(ctx, done)
		return
	}
	cancel, done := m.cancel, m.done
	m.cancel, m.done = nil, nil
	m.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	m.unmap()
}

// Close removes the mapping (on quit).
func (m *Mapper) Close() { m.SetOn(false) }

// Status reports what the mapper did last.
func (m *Mapper) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st
}

func (m *Mapper) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	for {
		wait := m.Refresh(ctx)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Refresh asks for (or renews) the mapping once and returns when to ask
// again. The loop calls it; tests call it directly.
func (m *Mapper) Refresh(ctx context.Context) time.Duration {
	m.mu.Lock()
	protos := m.protos
	if m.mapped != nil {
		protos = []Protocol{m.mapped} // renew where it is held
	}
	m.mu.Unlock()
	var answers []string
	for _, p := range protos {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		ext, granted, err := p.Map(c, m.port, Lifetime)
		cancel()
		if ctx.Err() != nil {
			return time.Hour
		}
		if err != nil {
			answers = append(answers, fmt.Sprintf("%s: %v", p.Name(), err))
			continue
		}
		m.mu.Lock()
		changed := m.st.External != ext
		m.mapped, m.failures = p, 0
		m.st = Status{On: true, Method: p.Name(), External: ext, Until: time.Now().Add(granted),
			Answer: fmt.Sprintf("%s mapped %s to port %d for %v", p.Name(), ext, m.port, granted)}
		answer := m.st.Answer
		m.mu.Unlock()
		if changed {
			m.log.Info("portmap: the router mapped this device's port", "answer", answer)
			m.set([]string{ext})
		}
		m.changed()
		return Next(granted, 0)
	}
	m.mu.Lock()
	lost := m.mapped != nil
	m.mapped = nil
	m.failures++
	wait := Next(0, m.failures)
	m.st = Status{On: true, Answer: "no mapping: " + joinAnswers(answers)}
	answer := m.st.Answer
	m.mu.Unlock()
	m.log.Warn("portmap: the router did not map this device's port", "answer", answer, "retry_in", wait)
	if lost {
		m.set(nil)
	}
	m.changed()
	return wait
}

func (m *Mapper) unmap() {
	m.mu.Lock()
	p := m.mapped
	m.mapped, m.failures = nil, 0
	if p == nil {
		m.st = Status{}
		m.mu.Unlock()
		m.changed()
		return
	}
	m.st = Status{Answer: "off"}
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := p.Unmap(ctx, m.port); err != nil {
		m.log.Warn("portmap: removing the mapping", "method", p.Name(), "err", err)
		m.mu.Lock()
		m.st.Answer = fmt.Sprintf("off; removing the %s mapping failed: %v", p.Name(), err)
		m.mu.Unlock()
	} else {
		m.log.Info("portmap: mapping removed", "method", p.Name())
	}
	m.set(nil)
	m.changed()
}

func joinAnswers(a []string) string {
	if len(a) == 0 {
		return "no protocol to ask"
	}
	s := a[0]
	for _, x := range a[1:] {
		s += "; " + x
	}
	return s
}

// ErrNoGateway says no default gateway was found to ask.
var ErrNoGateway = errors.New("portmap: no default gateway")

func hostPort(ip net.IP, port int) string { return net.JoinHostPort(ip.String(), strconv.Itoa(port)) }
