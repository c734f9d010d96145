package storage

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/furudesk/furudesk/engine"
)

func TestPlaybackConfigStrict(t *testing.T) {
	s, dir := openTemp(t)
	if c, err := s.PlaybackConfig(); err != nil || c != engine.DefaultConfig() {
		t.Fatalf("default config %+v %v", c, err)
	}
	c, err := s.SetPlaybackConfigJSON([]byte(`{"claim_on_startup": false, "owner_timeout_ms": 30000}`))
	if err != nil {
		t.Fatal(err)
	}
	want := engine.DefaultConfig()
	want.ClaimOnStartup, want.OwnerTimeoutMS = false, 30000
	if c != want {
		t.Fatalf("parsed %+v, want %+v (absent fields default)", c, want)
	}
	before := dump(t, s.db)
	for _, tc := range []struct{ json, field string }{
		{`{"claim_on_startup": false, "volume": 3}`, "volume"},
		{`{"owner_timeout_ms": "soon"}`, "owner_timeout_ms"},
		{`{"automatic_failover": 1}`, "automatic_failover"},
		{`{"owner_timeout_ms": -5}`, "owner_timeout_ms"},
		{`{"owner_timeout_ms": 0}`, "owner_timeout_ms"},
		{`{"discovery_ms": 99999999}`, "discovery_ms"},
		{`{"owner_timeout_ms": 1000} {}`, "trailing"},
		{`not json`, "invalid"},
	} {
		_, err := s.SetPlaybackConfigJSON([]byte(tc.json))
		if !errors.Is(err, engine.ErrConfig) {
			t.Errorf("%s: error %v, want engine.ErrConfig", tc.json, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: error %q does not name %q", tc.json, err, tc.field)
		}
		if got, _ := s.PlaybackConfig(); got != want {
			t.Errorf("%s: stored config changed to %+v", tc.json, got)
		}
	}
	if dump(t, s.db) != before {
		t.Fatalf("a refused config changed the database")
	}
	if err := s.SetPlaybackConfig(engine.Config{OwnerTimeoutMS: 0}); !errors.Is(err, engine.ErrConfig) {
		t.Fatalf("SetPlaybackConfig of an invalid config: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got, err := s2.PlaybackConfig(); err != nil || got != want {
		t.Fatalf("after reopen %+v %v", got, err)
	}
}

func TestSettingsAndFolders(t *testing.T) {
	s, _ := openTemp(t)
	if _, ok, err := s.Setting("theme"); ok || err != nil {
		t.Fatalf("unset setting: %v %v", ok, err)
	}
	for k, v := range map[string]string{"theme": "dark", "close_to_tray": "true", "passive": "false"} {
		if err := s.SetSetting(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetSetting("theme", "light"); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := s.Setting("theme"); !ok || v != "light" {
		t.Fatalf("theme = %q", v)
	}
	if err := s.DeleteSetting("theme"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Setting("theme"); ok {
		t.Fatalf("deleted setting still there")
	}
	if err := s.SetSetting("playback", "{}"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("generic write of the playback key: %v", err)
	}
	if err := s.SetSetting("x", strings.Repeat("v", MaxSettingValueBytes+1)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("huge value: %v", err)
	}

	folders := []string{"/home/me/Music", "/mnt/nas/Música"}
	if err := s.SetLibraryFolders(folders); err != nil {
		t.Fatal(err)
	}
	if got, err := s.LibraryFolders(); err != nil || !reflect.DeepEqual(got, folders) {
		t.Fatalf("folders %v %v", got, err)
	}
	if err := s.SetLibraryFolders([]string{"/a", "/a"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("duplicate folder: %v", err)
	}
	if got, _ := s.LibraryFolders(); !reflect.DeepEqual(got, folders) {
		t.Fatalf("refused change altered folders: %v", got)
	}
}

func TestIdentity(t *testing.T) {
	s, dir := openTemp(t)
	if _, err := s.Identity(); !errors.Is(err, ErrNoIdentity) {
		t.Fatalf("fresh store: %v", err)
	}
	if err := s.SetDeviceName("x"); !errors.Is(err, ErrNoIdentity) {
		t.Fatalf("rename without identity: %v", err)
	}
	id := Identity{PrivateKey: testKey(7), DeviceID: "dev_abc", GroupID: "grp_abc", DeviceName: "Desk"}
	if err := s.CreateIdentity(Identity{PrivateKey: []byte{1}, DeviceID: "d", GroupID: "g"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short key: %v", err)
	}
	if err := s.CreateIdentity(id); err != nil {
		t.Fatal(err)
	}
	other := id
	other.PrivateKey = testKey(8)
	if err := s.CreateIdentity(other); !errors.Is(err, ErrIdentityExists) {
		t.Fatalf("second identity: %v", err)
	}
	if err := s.SetGroup("grp_new"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDeviceName("Kitchen"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Identity()
	if err != nil {
		t.Fatal(err)
	}
	if !got.PrivateKey.Equal(id.PrivateKey) || got.DeviceID != "dev_abc" || got.GroupID != "grp_new" || got.DeviceName != "Kitchen" || got.CreatedAt.IsZero() {
		t.Fatalf("identity after reopen: %+v", got)
	}
}
