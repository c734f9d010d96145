package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/furudesk/furudesk/app"
)

// The masters in testdata were reviewed by eye: the track list with the
// playing track marked, the now-playing bar and the "Playing on" banner;
// the devices page with owner badge, offline device (Play here disabled),
// a pending request and the banner "Living room has the output".

func TestRenderTracksWhileAnotherDevicePlays(t *testing.T) {
	h := newHarness(t, 40)
	h.playing()
	h.remote()
	h.u.notices.view.RemoveAll()
	h.u.relayoutTop()
	test.AssertRendersToImage(t, "tracks_remote.png", h.u.win.Canvas())
}

func TestRenderDevicesPage(t *testing.T) {
	h := newHarness(t, 10)
	h.remote()
	h.u.notices.view.RemoveAll()
	h.u.relayoutTop()
	h.apply(func(st *app.Status) {
		st.Pairing = []app.PairingRequest{{ID: "r1", DeviceID: "dev-k", Name: "Kitchen", Fingerprint: "3f9a-1c07-b2e4-5d18", GroupConflict: true}}
	})
	h.u.showPage(PageDevices)
	test.AssertRendersToImage(t, "devices.png", h.u.win.Canvas())
}
