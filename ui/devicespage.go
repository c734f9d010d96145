package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
)

// maxInviteCode bounds what the Join dialog accepts from the clipboard.
const maxInviteCode = 4096

// devicesPage lists the group's devices (name, online or offline, the
// owner badge) with Play here and Remove, then pairing: add a device, join
// a group, and the requests waiting for an answer.
type devicesPage struct {
	u        *UI
	view     fyne.CanvasObject
	list     *fyne.Container
	requests *fyne.Container
	reqCard  *widget.Card
}

func newDevicesPage(u *UI) *devicesPage {
	p := &devicesPage{u: u, list: container.NewVBox(), requests: container.NewVBox()}
	add := u.openingDialog(widget.NewButtonWithIcon("Add a device", theme.ContentAddIcon(), u.showInvite))
	add.Importance = widget.HighImportance
	join := u.openingDialog(widget.NewButtonWithIcon("Join another device's group", theme.LoginIcon(), u.showJoin))
	pairText := newSubtle("Devices in one group act as one player: one of them plays, any of them controls it.")
	pairText.Wrapping = fyne.TextWrapWord
	pairing := widget.NewCard("Pair", "", container.NewVBox(pairText, container.NewHBox(add, join)))
	p.reqCard = widget.NewCard("Waiting for your answer", "", p.requests)
	p.reqCard.Hide()
	p.view = container.NewVScroll(container.NewVBox(
		widget.NewCard("Your devices", "", p.list), p.reqCard, pairing))
	return p
}

func (p *devicesPage) update(st, prev app.Status, first bool) {
	if first || !sameDevices(st.Devices, prev.Devices) || st.Owner != prev.Owner || st.DeviceID != prev.DeviceID ||
		ownerBadge(st) != ownerBadge(prev) || st.Passive != prev.Passive {
		p.renderDevices(st)
	}
	if first || !samePairing(st.Pairing, prev.Pairing) {
		p.renderRequests(st.Pairing)
	}
}

func sameDevices(a, b []app.DeviceStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func samePairing(a, b []app.PairingRequest) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (p *devicesPage) renderDevices(st app.Status) {
	u := p.u
	p.list.RemoveAll()
	devs := st.Devices
	if len(devs) == 0 {
		devs = []app.DeviceStatus{{DeviceID: st.DeviceID, Name: st.DeviceName, Online: true, Owner: st.Owner == st.DeviceID, Self: true, Selectable: true}}
	}
	for i, d := range devs {
		d := d
		name := widget.NewLabelWithStyle(orUnknown(d.Shown(), "device"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		name.Truncation = fyne.TextTruncateEllipsis
		badges := container.New(textRow{}, name)
		if d.Self {
			badges.Add(pill("This device", theme.ColorNameInputBackground, widget.MediumImportance))
			// app.DeviceStatus does not say whether a peer is passive, so
			// only this device can show it
			if st.Passive {
				badges.Add(pill(badgeAlwaysOn, theme.ColorNameInputBackground, widget.MediumImportance))
			}
		}
		if d.Owner || d.DeviceID == st.Owner {
			if b := ownerBadge(st); b == "Playing" {
				badges.Add(pill(b, theme.ColorNamePrimary, widget.HighImportance))
			} else {
				badges.Add(pill(b, theme.ColorNameInputBackground, widget.MediumImportance))
			}
		}
		state := "Offline"
		if d.Unreachable != "" {
			state = "Offline: " + d.Unreachable
		}
		dot := canvas.NewCircle(theme.Color(theme.ColorNameDisabled))
		if d.Online || d.Self {
			state = "Online"
			switch {
			case d.Self:
			case d.ViaName != "":
				state = "Online through " + d.ViaName
			case d.Relayed:
				state = "Online through another device"
			}
			dot.FillColor = theme.Color(theme.ColorNameSuccess)
		}
		stateLabel := newSubtle(state)
		stateRow := container.NewHBox(container.NewCenter(container.New(fixedSize{fyne.NewSize(10, 10)}, dot)), stateLabel)

		actions := container.NewHBox()
		if d.DeviceID != st.Owner {
			// "Play here" is this device's, everywhere; another row's
			// button names the device it sends the music to.
			label := "Play here"
			if !d.Self {
				label = "Play on " + shorten(d.Name, maxNameOnButton)
			}
			here := widget.NewButtonWithIcon(label, iconSpeaker, func() { u.transfer(d.DeviceID, d.Name) })
			if !d.Selectable {
				here.Disable() // the app refuses it (offline)
			}
			actions.Add(here)
		}
		if !d.Self {
			rm := u.openingDialog(widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { u.confirmRevoke(d) }))
			rm.Importance = widget.LowImportance
			actions.Add(rm)
		}
		icon := widget.NewIcon(deviceIcon(d))
		row := container.NewBorder(nil, nil, container.NewPadded(icon), container.NewCenter(actions),
			container.New(layout.NewCustomPaddedVBoxLayout(-10), badges, stateRow))
		if i > 0 {
			p.list.Add(widget.NewSeparator())
		}
		p.list.Add(row)
	}
}

// deviceIcon is a computer for a device with a window, a speaker for a
// box without one.
func deviceIcon(d app.DeviceStatus) fyne.Resource {
	if d.Box {
		return iconSpeaker
	}
	return theme.ComputerIcon()
}

// badgeAlwaysOn marks a passive device (an always-on server that plays
// only when playback is sent to it).
const badgeAlwaysOn = "Always on"

// ownerBadge is what the device owning the output is doing: "Playing"
// only while it plays, "Paused" with a track loaded, else "Owner" (it holds
// the output with nothing to play).
func ownerBadge(st app.Status) string {
	switch {
	case st.Track == nil:
		return "Owner"
	case st.Playing:
		return "Playing"
	default:
		return "Paused"
	}
}

// pill is a small rounded badge.
func pill(text string, bg fyne.ThemeColorName, imp widget.Importance) fyne.CanvasObject {
	l := widget.NewLabel(text)
	l.SizeName = theme.SizeNameCaptionText
	l.Importance = imp
	if imp == widget.HighImportance {
		l.Importance = widget.MediumImportance
		l.TextStyle.Bold = true
	}
	r := canvas.NewRectangle(withAlpha(theme.Color(bg), 0x55))
	r.CornerRadius = 9
	return container.NewCenter(container.NewStack(r, container.New(layout.NewCustomPaddedLayout(-6, -6, 2, 2), l)))
}

func (p *devicesPage) renderRequests(reqs []app.PairingRequest) {
	u := p.u
	p.requests.RemoveAll()
	if len(reqs) == 0 {
		p.reqCard.Hide()
		return
	}
	p.reqCard.Show()
	for _, r := range reqs {
		r := r
		name := orUnknown(r.Name, "device")
		var text string
		btns := container.NewHBox()
		if r.GroupConflict {
			text = name + " already belongs to another group. Join their group (this device leaves yours), or keep your group and bring " + name + " into it?"
			theirs := widget.NewButton("Join their group", func() { u.answer(r, true, true) })
			ours := widget.NewButton("Keep my group", func() { u.answer(r, true, false) })
			ours.Importance = widget.HighImportance
			btns.Add(ours)
			btns.Add(theirs)
		} else {
			text = name + " wants to join your group."
			acc := widget.NewButtonWithIcon("Accept", theme.ConfirmIcon(), func() { u.answer(r, true, false) })
			acc.Importance = widget.HighImportance
			btns.Add(acc)
		}
		deny := widget.NewButtonWithIcon("Deny", theme.CancelIcon(), func() { u.answer(r, false, false) })
		btns.Add(deny)
		// Any device can take any name: the fingerprint tells them apart.
		text += "\nKey fingerprint " + orUnknown(r.Fingerprint, "unknown") + ": accept only if " + name +
			" shows the same one as its own (in its Join dialog, or furudesk ctl status)."
		l := widget.NewLabel(text)
		l.Wrapping = fyne.TextWrapWord
		p.requests.Add(container.NewVBox(l, btns))
	}
}

// answer accepts (joining their group or keeping ours) or denies a
// pairing request.
func (u *UI) answer(r app.PairingRequest, accept, joinTheirs bool) {
	name := orUnknown(r.Name, "device")
	if !accept {
		u.run("Could not deny "+name, func() error { return u.b.Deny(r.ID) })
		return
	}
	u.run("Could not accept "+name, func() error { return u.b.Accept(r.ID, joinTheirs) })
}

func (u *UI) confirmRevoke(d app.DeviceStatus) {
	name := orUnknown(d.Name, "device")
	c := dialog.NewConfirm("Remove "+name+"?",
		name+" will no longer see or control your music.\nTo use it again, pair it again.",
		func(ok bool) {
			if ok {
				u.run("Could not remove "+name, func() error { return u.b.Revoke(d.DeviceID) })
			}
		}, u.win)
	u.showDialog(c, c.Confirm)
}

// showInvite makes an invite code and shows it with a copy button and its
// expiry.
func (u *UI) showInvite() {
	var inv app.Invite
	u.runThen(func() error {
		var err error
		inv, err = u.b.Invite()
		return err
	}, func(err error) {
		if err != nil {
			u.showError("Could not make an invite code: " + userError(err))
			return
		}
		u.inviteDialog(inv)
	})
}

func (u *UI) inviteDialog(inv app.Invite) {
	intro := widget.NewLabel("On the other device open Devices → “Join another device's group” and paste this code:")
	intro.Wrapping = fyne.TextWrapWord
	code := widget.NewLabel(inv.Code)
	code.Wrapping = fyne.TextWrapBreak
	code.Selectable = true
	code.TextStyle.Monospace = true
	copied := widget.NewLabel("")
	copied.Importance = widget.SuccessImportance
	copyBtn := widget.NewButtonWithIcon("Copy code", theme.ContentCopyIcon(), func() {
		u.fa.Clipboard().SetContent(inv.Code)
		copied.SetText("Copied")
	})
	copyBtn.Importance = widget.HighImportance
	exp := newSubtle("The code works once and expires at " + inv.Expires.Local().Format("15:04") + " (" + untilText(u.now(), inv.Expires) + ").")
	exp.Wrapping = fyne.TextWrapWord
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = 6
	body := container.NewVBox(intro, container.NewStack(bg, container.NewPadded(code)),
		container.NewHBox(copyBtn, copied), exp)
	d := dialog.NewCustom("Add a device", "Done", body, u.win)
	d.Resize(fyne.NewSize(520, 0))
	u.showDialog(d, d.Hide)
}

// showJoin asks for an invite code from another device and pairs with it.
func (u *UI) showJoin() {
	entry := u.newDialogEntry(true)
	entry.SetPlaceHolder("frid://i/…")
	entry.Wrapping = fyne.TextWrapBreak
	entry.SetMinRowsVisible(3)
	msg := widget.NewLabel("")
	msg.Wrapping = fyne.TextWrapWord
	msg.Importance = widget.DangerImportance
	msg.Hide()
	intro := widget.NewLabel("Paste the invite code shown by “Add a device” on the other device.")
	intro.Wrapping = fyne.TextWrapWord
	mine := newSubtle("The other device will show this device's request with its key fingerprint: " +
		orUnknown(u.st.Fingerprint, "unknown") + ". Its user should accept only if it is this one.")
	mine.Wrapping = fyne.TextWrapWord
	var d *dialog.CustomDialog
	var join *widget.Button
	join = widget.NewButtonWithIcon("Join", theme.LoginIcon(), func() {
		code := strings.TrimSpace(entry.Text)
		switch {
		case code == "":
			msg.SetText("Paste a code first.")
			msg.Show()
			return
		case len(code) > maxInviteCode:
			msg.SetText("That is too long to be an invite code.")
			msg.Show()
			return
		}
		join.Disable()
		msg.Hide()
		u.runThen(func() error { return u.b.Pair(code) }, func(err error) {
			join.Enable()
			if err != nil {
				msg.SetText("Could not join: " + userError(err))
				msg.Show()
				return
			}
			d.Hide()
			u.notices.info("Joined the group. Your devices appear under Devices as they come online.")
		})
	})
	join.Importance = widget.HighImportance
	cancel := widget.NewButton("Cancel", func() { d.Hide() })
	body := container.NewVBox(intro, entry, mine, msg)
	d = dialog.NewCustomWithoutButtons("Join another device's group", body, u.win)
	d.SetButtons([]fyne.CanvasObject{cancel, join})
	d.Resize(fyne.NewSize(520, 0))
	u.showDialog(d, func() {
		if !join.Disabled() {
			join.OnTapped()
		}
	})
	u.win.Canvas().Focus(entry)
}
