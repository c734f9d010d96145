package ui

// The "Reach from outside" card of the settings: how devices of the group
// that are away from home (a laptop at the office, a phone on mobile data)
// reach this one: a port the user forwarded on the router by hand, or
// one this device maps there itself by UPnP-IGD or NAT-PMP. The same
// settings as `ctl public-addr` and `ctl portmap`.

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
)

type outsideCard struct {
	u       *UI
	view    fyne.CanvasObject
	box     *fyne.Container
	portmap *widget.Check
	mapped  *subtle // what the router answered
	public  *widget.Entry
	seen    *subtle // the addresses members saw this device come from
	msg     *widget.Label
	last    app.ReachStatus // what is shown
}

func newOutsideCard(u *UI) *outsideCard {
	c := &outsideCard{u: u, mapped: newSubtle(""), public: widget.NewEntry(), seen: newSubtle(""), msg: widget.NewLabel("")}
	for _, l := range []*subtle{c.mapped, c.seen} {
		l.Wrapping = fyne.TextWrapWord
		l.Hide()
	}
	c.msg.Wrapping = fyne.TextWrapWord
	c.msg.Hide()
	c.portmap = widget.NewCheck("Open a port on the router (UPnP or NAT-PMP)", nil)
	c.portmap.OnChanged = c.setPortMap
	c.public.SetPlaceHolder("home.example.net:7400")
	c.public.OnSubmitted = func(string) { c.applyPublic() }
	form := widget.NewForm(widget.NewFormItem("Forwarded address", c.public))
	form.Items[0].HintText = "The address and port you forwarded to this device on your router, if you did. Several: separate them with spaces. Empty: none."
	apply := widget.NewButtonWithIcon("Apply", theme.ConfirmIcon(), c.applyPublic)
	c.box = container.NewVBox(c.portmap, c.mapped, form, c.seen, c.msg, container.NewHBox(apply))
	c.view = widget.NewCard("Reach from outside", "So your devices away from home reach this one: a laptop at work, a phone on mobile data.", c.box)
	return c
}

// update renders what st says of reaching this device from outside; the
// forwarded addresses go into the field the first time and when they
// change, unless the user is editing the field.
func (c *outsideCard) update(st app.Status, first bool) {
	var r app.ReachStatus
	if st.Reach != nil {
		r = *st.Reach
	}
	if !first && sameReach(r, c.last) {
		return
	}
	shown := strings.Join(c.last.Public, " ")
	c.last = r
	setChecked(c.portmap, r.PortMap.On)
	moved := setShown(c.mapped, portMapText(r))
	moved = setShown(c.seen, seenText(r)) || moved
	if moved {
		c.box.Refresh() // lay the card out again, as a text appeared or went
	}
	// The field follows a change made elsewhere (ctl public-addr) unless
	// the user is editing it; an apply puts what it set there itself.
	if first || c.public.Text == shown {
		c.public.SetText(strings.Join(r.Public, " "))
	}
}

// sameReach tells whether a and b show the same.
func sameReach(a, b app.ReachStatus) bool {
	return sameStrings(a.Public, b.Public) && sameStrings(a.Observed, b.Observed) && a.PortMap == b.PortMap
}

// setShown shows l with s, or hides it when s is empty. It reports
// whether l appeared, went or changed its text.
func setShown(l *subtle, s string) bool {
	if l.Text == s && l.Visible() == (s != "") {
		return false
	}
	l.SetText(s)
	if s == "" {
		l.Hide()
	} else {
		l.Show()
	}
	return true
}

// portMapText says what opening a port on the router did: "Opened by
// UPnP-IGD: other networks reach this device at 11.0.0.20:7400.", or
// what the router answered.
func portMapText(r app.ReachStatus) string {
	pm := r.PortMap
	switch {
	case pm.External != "":
		return "Opened by " + pm.Method + ": other networks reach this device at " + pm.External + "."
	case pm.On && strings.HasPrefix(pm.Answer, "no mapping: "):
		return "The router did not open a port (" + strings.TrimPrefix(pm.Answer, "no mapping: ") + "). Is UPnP or NAT-PMP turned on in its settings? furudesk asks again later."
	case pm.On:
		return "Asking the router…"
	case strings.HasPrefix(pm.Answer, "off; "):
		return userSentence(strings.TrimPrefix(pm.Answer, "off; "))
	}
	return ""
}

// seenText names the addresses members saw this device come from, the
// ones to forward when nothing is forwarded or mapped yet.
func seenText(r app.ReachStatus) string {
	if len(r.Observed) == 0 || len(r.Public) > 0 || r.PortMap.External != "" {
		return ""
	}
	return "Your other devices see this one at " + strings.Join(r.Observed, ", ") + ". Forward that port on your router to this device, or open one above."
}

// setPortMap applies the check box at once.
func (c *outsideCard) setPortMap(on bool) {
	c.u.runThen(func() error { return c.u.b.SetPortMap(on) }, func(err error) {
		if err != nil {
			c.u.warn(c.msg, "Could not change it: "+userError(err))
			setChecked(c.portmap, c.last.PortMap.On)
			return
		}
		if on {
			c.u.confirm(c.msg, "Asking the router to open a port for this device.")
		} else {
			c.u.confirm(c.msg, "The port on the router is closed again.")
		}
	})
}

// applyPublic sets the forwarded addresses in the field (none when empty).
func (c *outsideCard) applyPublic() {
	addrs := strings.FieldsFunc(c.public.Text, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	c.u.runThen(func() error { return c.u.b.SetPublicAddrs(addrs) }, func(err error) {
		if err != nil {
			c.u.warn(c.msg, userError(err))
			return
		}
		if len(addrs) == 0 {
			c.u.confirm(c.msg, "No forwarded address: away from home, your devices reach this one through an opened port or another device.")
		} else {
			c.u.confirm(c.msg, "Your devices away from home now dial "+strings.Join(addrs, ", ")+".")
		}
		c.public.SetText(strings.Join(addrs, " "))
	})
}
