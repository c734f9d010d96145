package ui

// The "Phones and browsers" card of the settings: the web player on or
// off, its address and a QR code of it, a pairing code for a browser,
// and the paired browsers with a way to remove each.

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/furudesk/furudesk/web"
)

// WebPlayer is the web player as the settings drive it (Options.Web);
// the front end that owns the server implements it. Methods may block
// for a bounded time and are called off the UI goroutine.
type WebPlayer interface {
	// WebState says whether it serves, where, and who is paired.
	WebState() WebState
	// SetWeb serves on addr (host:port, such as ":8443") or stops; the
	// choice is kept for the next launches.
	SetWeb(on bool, addr string) error
	// NewWebCode returns a one-use pairing code for a browser.
	NewWebCode() (web.Code, error)
	// RevokeBrowser removes a paired browser; its pages are shown out.
	RevokeBrowser(id string) error
}

// WebState is the web player's state shown in the settings.
type WebState struct {
	On       bool
	Addr     string
	URLs     []string
	Browsers []web.BrowserInfo
}

// defaultWebAddr is offered when the web player was never on.
const defaultWebAddr = ":8443"

type webCard struct {
	u        *UI
	w        WebPlayer
	view     fyne.CanvasObject
	on       *widget.Check
	addr     *widget.Entry
	url      *widget.Label
	qr       *canvas.Image
	code     *widget.Label
	codeBtn  *widget.Button
	browsers *fyne.Container
	msg      *widget.Label
	filling  bool
	read     bool
}

func newWebCard(u *UI, w WebPlayer) *webCard {
	c := &webCard{u: u, w: w, addr: widget.NewEntry(), url: widget.NewLabel(""), code: widget.NewLabel(""),
		msg: widget.NewLabel(""), browsers: container.NewVBox()}
	c.on = widget.NewCheck("Serve the web player on this network", func(on bool) {
		if !c.filling {
			c.apply(on)
		}
	})
	c.addr.SetPlaceHolder(defaultWebAddr)
	c.url.Selectable = true
	c.url.Wrapping = fyne.TextWrapBreak
	c.msg.Wrapping = fyne.TextWrapWord
	c.msg.Hide()
	c.code.TextStyle = fyne.TextStyle{Monospace: true}
	c.code.Hide()
	c.qr = canvas.NewImageFromImage(nil)
	c.qr.FillMode = canvas.ImageFillContain
	c.qr.ScaleMode = canvas.ImageScalePixels
	c.qr.SetMinSize(fyne.NewSize(160, 160))
	c.qr.Hide()
	applyBtn := widget.NewButtonWithIcon("Apply", theme.ConfirmIcon(), func() { c.apply(c.on.Checked) })
	c.codeBtn = widget.NewButtonWithIcon("New pairing code", theme.ContentAddIcon(), c.newCode)
	hint := newSubtle("A phone or any browser on your network opens this address and controls the group, after typing a pairing code. Plain HTTP: use it on a network you trust.")
	hint.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(widget.NewFormItem("Address", container.NewBorder(nil, nil, nil, applyBtn, c.addr)))
	c.view = widget.NewCard("Phones and browsers", "", container.NewVBox(hint, c.on, form, c.msg,
		container.NewBorder(nil, nil, c.qr, nil, container.NewVBox(c.url, container.NewHBox(c.codeBtn), c.code)),
		widget.NewLabelWithStyle("Paired browsers", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), c.browsers))
	return c
}

// update reads the state when the settings are first shown.
func (c *webCard) update() {
	if c.u.page != PageSettings || c.read {
		return
	}
	c.read = true
	c.reload()
}

func (c *webCard) reload() {
	c.u.spawn(func() {
		st := c.w.WebState()
		c.u.do(func() { c.show(st) })
	})
}

func (c *webCard) show(st WebState) {
	c.filling = true
	c.on.SetChecked(st.On)
	c.filling = false
	if c.addr.Text == "" || st.On {
		a := st.Addr
		if a == "" {
			a = defaultWebAddr
		}
		c.addr.SetText(a)
	}
	c.codeBtn.Enable()
	if !st.On || len(st.URLs) == 0 {
		c.url.SetText("The web player is off.")
		c.qr.Hide()
		c.codeBtn.Disable()
		c.code.Hide()
	} else {
		c.url.SetText(st.URLs[0])
		if png, err := qrcode.New(st.URLs[0], qrcode.Medium); err == nil {
			c.qr.Image = png.Image(320)
			c.qr.Show()
			c.qr.Refresh()
		}
	}
	c.browsers.RemoveAll()
	if len(st.Browsers) == 0 {
		c.browsers.Add(newSubtle("None yet."))
	}
	for _, b := range st.Browsers {
		b := b
		seen := "last seen " + b.LastSeen.Local().Format("2 Jan 15:04")
		if b.Connected {
			seen = "connected now"
		}
		rm := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { c.revoke(b) })
		c.browsers.Add(container.NewBorder(nil, nil, nil, rm,
			widget.NewLabel(fmt.Sprintf("%s · paired %s · %s", b.Label, b.Paired.Local().Format("2 Jan 2006"), seen))))
	}
}

func (c *webCard) say(text string) {
	c.msg.SetText(text)
	c.msg.Show()
}

func (c *webCard) apply(on bool) {
	addr := c.addr.Text
	if addr == "" {
		addr = defaultWebAddr
	}
	c.u.runThen(func() error { return c.w.SetWeb(on, addr) }, func(err error) {
		if err != nil {
			c.say("Could not serve the web player: " + userError(err))
		} else {
			c.msg.Hide()
		}
		c.reload()
	})
}

func (c *webCard) newCode() {
	var code web.Code
	c.u.runThen(func() error {
		var err error
		code, err = c.w.NewWebCode()
		return err
	}, func(err error) {
		if err != nil {
			c.say("No pairing code: " + userError(err))
			return
		}
		c.code.SetText(fmt.Sprintf("%s-%s  (one browser, until %s)", code.Code[:4], code.Code[4:], code.Expires.Local().Format("15:04")))
		c.code.Show()
	})
}

func (c *webCard) revoke(b web.BrowserInfo) {
	c.u.runThen(func() error { return c.w.RevokeBrowser(b.ID) }, func(err error) {
		if err != nil {
			c.say("Could not remove " + b.Label + ": " + userError(err))
		}
		c.reload()
	})
}
