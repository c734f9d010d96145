package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/furudesk/furudesk/ui/internal/fakebackend"
	"github.com/furudesk/furudesk/web"
)

// fakeWeb is a web player the settings drive.
type fakeWeb struct {
	st    WebState
	calls []string
	fail  error
}

func (f *fakeWeb) WebState() WebState { return f.st }
func (f *fakeWeb) SetWeb(on bool, addr string) error {
	f.calls = append(f.calls, "SetWeb("+map[bool]string{true: "on", false: "off"}[on]+","+addr+")")
	if f.fail != nil {
		return f.fail
	}
	f.st.On, f.st.Addr = on, addr
	f.st.URLs = nil
	if on {
		f.st.URLs = []string{"http://192.168.1.20" + addr + "/"}
	}
	return nil
}
func (f *fakeWeb) NewWebCode() (web.Code, error) {
	f.calls = append(f.calls, "NewWebCode")
	return web.Code{Code: "ABCD2345", Expires: time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC)}, nil
}
func (f *fakeWeb) RevokeBrowser(id string) error {
	f.calls = append(f.calls, "RevokeBrowser("+id+")")
	f.st.Browsers = nil
	return nil
}

func newWebHarness(t *testing.T, w *fakeWeb) *UI {
	t.Helper()
	fa := test.NewTempApp(t)
	b := fakebackend.New(fakebackend.MakeTracks(2))
	var u *UI
	u = newUI(fa, b, Options{Web: w}, func(f func()) {
		f()
		if u != nil {
			u.apply(b.Status())
		}
	})
	u.win.Resize(fyne.NewSize(860, 700))
	t.Cleanup(func() { u.Close(); u.win.Close() })
	return u
}

func TestThePhonesAndBrowsersCardTurnsTheWebPlayerOnAndPairs(t *testing.T) {
	w := &fakeWeb{}
	u := newWebHarness(t, w)
	u.showPage(PageSettings)
	c := u.settings.web
	if c == nil || !hasText(c.view, "Phones and browsers") {
		t.Fatal("no Phones and browsers card")
	}
	if c.on.Checked || c.url.Text != "The web player is off." || !c.codeBtn.Disabled() || c.qr.Visible() {
		t.Fatalf("off: checked=%v url=%q code disabled=%v qr=%v", c.on.Checked, c.url.Text, c.codeBtn.Disabled(), c.qr.Visible())
	}
	if c.addr.Text != defaultWebAddr {
		t.Fatalf("address %q, want the default %q", c.addr.Text, defaultWebAddr)
	}
	test.Tap(c.on)
	if strings.Join(w.calls, " ") != "SetWeb(on,:8443)" {
		t.Fatalf("calls %q", w.calls)
	}
	if c.url.Text != "http://192.168.1.20:8443/" || !c.qr.Visible() || c.qr.Image == nil || c.codeBtn.Disabled() {
		t.Fatalf("on: url=%q qr=%v", c.url.Text, c.qr.Visible())
	}
	test.Tap(c.codeBtn)
	if !c.code.Visible() || !strings.HasPrefix(c.code.Text, "ABCD-2345") {
		t.Fatalf("code %q", c.code.Text)
	}

	w.st.Browsers = []web.BrowserInfo{{ID: "b1", Label: "Android · Chrome", Paired: time.Now(), Connected: true}}
	c.reload()
	if got := labelsWith(c.browsers, func(s string) bool {
		return strings.HasPrefix(s, "Android · Chrome · paired") && strings.HasSuffix(s, "connected now")
	}); len(got) != 1 {
		t.Fatal("the paired browser is not listed")
	}
	test.Tap(button(t, c.browsers, "Remove"))
	if w.calls[len(w.calls)-1] != "RevokeBrowser(b1)" || len(labelsWith(c.browsers, func(s string) bool { return s == "None yet." })) != 1 {
		t.Fatalf("calls %q", w.calls)
	}

	w.fail = errors.New("127.0.0.1:80 is not free")
	c.addr.SetText("127.0.0.1:80")
	test.Tap(button(t, c.view, "Apply"))
	if !c.msg.Visible() || !strings.Contains(c.msg.Text, "not free") {
		t.Fatalf("message %q", c.msg.Text)
	}
	if c.addr.Text != ":8443" {
		t.Fatalf("after the refusal the address reads %q, want the one still served", c.addr.Text)
	}
	w.fail = nil
	test.Tap(c.on)
	if w.calls[len(w.calls)-1] != "SetWeb(off,:8443)" || c.on.Checked || c.url.Text != "The web player is off." {
		t.Fatalf("off again: %q %v", w.calls, c.on.Checked)
	}
}
