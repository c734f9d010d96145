package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Config is the local playback coordination policy of one device. Its JSON
// form is the `playback` settings object.
type Config struct {
	ClaimOnStartup      bool   `json:"claim_on_startup"`
	AutomaticFailover   bool   `json:"automatic_failover"`
	TakePausedOnStartup bool   `json:"take_paused_on_startup"`
	DiscoveryMS         uint64 `json:"discovery_ms"`
	OwnerTimeoutMS      uint64 `json:"owner_timeout_ms"`
}

// Bounds on the timing fields. A discovery grace longer than the owner
// timeout, or timeouts of days, are almost certainly typing mistakes.
const (
	MaxDiscoveryMS    = 60_000
	MinOwnerTimeoutMS = 1
	MaxOwnerTimeoutMS = 24 * 60 * 60 * 1000
)

// DefaultConfig is the profile of an ordinary desktop player.
func DefaultConfig() Config {
	return Config{
		ClaimOnStartup:      true,
		AutomaticFailover:   true,
		TakePausedOnStartup: true,
		DiscoveryMS:         3000,
		OwnerTimeoutMS:      120000,
	}
}

// Passive is the profile of an always-on output: it never claims by itself
// (no startup claim, no automatic failover) but follows greater claims and
// renders when a transfer names it.
func Passive() Config {
	c := DefaultConfig()
	c.ClaimOnStartup = false
	c.AutomaticFailover = false
	return c
}

// ErrConfig is wrapped by every configuration parse or validation error.
var ErrConfig = errors.New("engine: invalid playback config")

// ParseConfig decodes the JSON object of a Config. Absent fields take their
// defaults; unknown fields, wrong types, trailing data and values that fail
// Validate are errors naming the field.
func ParseConfig(data []byte) (Config, error) {
	c := DefaultConfig()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%w: %s", ErrConfig, describeJSONError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return Config{}, fmt.Errorf("%w: trailing data after the JSON object", ErrConfig)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q: %s is not a valid %s", te.Field, te.Value, te.Type)
	}
	return err.Error()
}

// Validate checks the timing bounds and names the offending field and value.
func (c Config) Validate() error {
	if c.OwnerTimeoutMS < MinOwnerTimeoutMS || c.OwnerTimeoutMS > MaxOwnerTimeoutMS {
		return fmt.Errorf("%w: owner_timeout_ms = %d, want %d..%d", ErrConfig, c.OwnerTimeoutMS, MinOwnerTimeoutMS, MaxOwnerTimeoutMS)
	}
	if c.DiscoveryMS > MaxDiscoveryMS {
		return fmt.Errorf("%w: discovery_ms = %d, want 0..%d", ErrConfig, c.DiscoveryMS, MaxDiscoveryMS)
	}
	return nil
}
