package ui

import (
	"image/color"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/internal/framegov"
)

// Notices are toasts over the content, above the now-playing bar at the
// right: nothing moves under them, so a click lands where the user aimed.
// Several stack up (the newest at the bottom, at most noticeMax); a click
// on one dismisses it, and each goes away by itself after a while
// (noticeInfoTTL, or noticeErrorTTL for a problem). Problems (errors and
// warnings) are also kept in the problems list, which the header's
// warning button opens, until the user clears them or the app withdraws
// them (the sound device works again).
const (
	noticeMax      = 4
	noticeInfoTTL  = 6 * time.Second
	noticeErrorTTL = 12 * time.Second
	noticeUndoTTL  = 10 * time.Second
	toastWidth     = 400
	maxProblems    = 50
)

// noticeBar is the stack of toasts and the problems list.
type noticeBar struct {
	u    *UI
	view *fyne.Container // the toasts, laid out by toastLayout over the content
	// fromApp maps the toasts showing app notices to their IDs, so a
	// notice the app withdraws goes away. A toast shows several IDs when
	// the app sent the same text more than once.
	fromApp map[fyne.CanvasObject][]uint64
	// rows says what each toast shows, so the same text is never shown
	// twice.
	rows map[fyne.CanvasObject]noticeRow

	problems []problem
	button   *tipButton // the header's: opens the problems list, shows how many
	popup    *widget.PopUp
}

// noticeRow is what one toast shows.
type noticeRow struct {
	key     string // noticeKey of its text
	problem bool   // shown as a problem (error or warning)
}

// problem is one entry of the problems list.
type problem struct {
	text string
	at   time.Time
	ids  []uint64 // the app notices it shows (withdrawn with them)
}

func newNoticeBar(u *UI) *noticeBar {
	n := &noticeBar{u: u, view: container.New(&toastLayout{u: u}),
		fromApp: map[fyne.CanvasObject][]uint64{}, rows: map[fyne.CanvasObject]noticeRow{}}
	n.button = u.newTipButton("", theme.NewErrorThemedResource(theme.WarningIcon()), "Problems: what went wrong lately", n.showProblems).opening("popup")
	n.button.Importance = widget.LowImportance
	n.button.Hide()
	return n
}

func (n *noticeBar) info(text string) { n.add("info", text) }

// working shows text while some work runs; the returned func takes it
// away when the work is done (a finished job keeps no "Making…" toast).
func (n *noticeBar) working(text string) (done func()) {
	row, _ := n.addRow("info", text, "", nil, nil)
	return func() {
		if _, ok := n.rows[row]; ok {
			n.remove(row)
		}
	}
}

// add shows a notice; level "error" (or "warning") is a problem.
func (n *noticeBar) add(level, text string) { n.addRow(level, text, "", nil, nil) }

// undo shows an information with an Undo button that runs do.
func (n *noticeBar) undo(text string, do func()) { n.addRow("info", text, "Undo", do, nil) }

// addApp shows the app's notice id.
func (n *noticeBar) addApp(id uint64, level, text string) {
	row, ids := n.addRow(level, text, "", nil, []uint64{id})
	n.fromApp[row] = append(ids, id)
}

// noticeKey is what two notices must share to say the same thing: the
// text without surrounding space or a final full stop.
func noticeKey(text string) string {
	return strings.TrimSuffix(strings.TrimSpace(text), ".")
}

// withdraw removes the app notices shown (as toasts and problems) that
// the app no longer lists, given its list (IDs ascending). The app keeps
// only its latest app.MaxNotices notices: from a full list, one older
// than the first listed may have aged out rather than been withdrawn, and
// stays until the user closes it.
func (n *noticeBar) withdraw(listed []uint64) {
	keep := make(map[uint64]bool, len(listed))
	for _, id := range listed {
		keep[id] = true
	}
	gone := func(ids []uint64) bool {
		if len(ids) == 0 {
			return false
		}
		for _, id := range ids {
			if keep[id] || (len(listed) >= app.MaxNotices && id < listed[0]) {
				return false
			}
		}
		return true
	}
	var rows []fyne.CanvasObject
	for row, ids := range n.fromApp {
		if gone(ids) {
			rows = append(rows, row)
		}
	}
	for _, row := range rows {
		n.remove(row)
	}
	before := len(n.problems)
	n.problems = slices.DeleteFunc(n.problems, func(p problem) bool { return gone(p.ids) })
	if len(n.problems) != before {
		n.showCount()
	}
}

// addRow shows a notice as the newest toast. A toast already saying the
// same text goes away (the new one takes its place, and its level); ids
// are the app notice IDs that toast showed. action, when not empty, is a
// button (Undo) that runs do.
func (n *noticeBar) addRow(level, text, action string, do func(), appIDs []uint64) (row fyne.CanvasObject, ids []uint64) {
	key := noticeKey(text)
	for _, o := range n.view.Objects {
		if n.rows[o].key == key {
			ids = n.fromApp[o]
			n.remove(o)
			break
		}
	}
	isErr := level == "error" || level == "warning"
	if isErr {
		n.addProblem(text, appIDs)
	}
	t := newToast(n, text, isErr, action, do)
	n.view.Add(t)
	n.rows[t] = noticeRow{key: key, problem: isErr}
	for len(n.view.Objects) > noticeMax {
		n.remove(n.view.Objects[0])
	}
	n.view.Refresh()
	ttl := noticeInfoTTL
	switch {
	case isErr:
		ttl = noticeErrorTTL
	case do != nil:
		ttl = noticeUndoTTL
	}
	if n.u.ticking {
		time.AfterFunc(ttl, func() { framegov.Do(func() { n.remove(t) }) })
	}
	return t, ids
}

// addProblem keeps a problem in the list (once per text, the newest
// last).
func (n *noticeBar) addProblem(text string, ids []uint64) {
	key := noticeKey(text)
	for i, p := range n.problems {
		if noticeKey(p.text) == key {
			ids = append(p.ids, ids...)
			n.problems = slices.Delete(n.problems, i, i+1)
			break
		}
	}
	n.problems = append(n.problems, problem{text: text, at: n.u.now(), ids: ids})
	if len(n.problems) > maxProblems {
		n.problems = n.problems[len(n.problems)-maxProblems:]
	}
	n.showCount()
}

// showCount shows the header's button while there are problems.
func (n *noticeBar) showCount() {
	if len(n.problems) == 0 {
		n.button.Hide()
		if n.popup != nil {
			n.popup.Hide()
		}
		return
	}
	n.button.SetText(itoa(len(n.problems)))
	n.button.Show()
}

// showProblems opens the problems list under the header's button.
func (n *noticeBar) showProblems() {
	box := container.NewVBox()
	for i := len(n.problems) - 1; i >= 0; i-- {
		p := n.problems[i]
		l := widget.NewLabel(p.text)
		l.Wrapping = fyne.TextWrapWord
		when := newSubtle(agoText(p.at, n.u.now()))
		when.SizeName = theme.SizeNameCaptionText
		box.Add(container.New(layout.NewCustomPaddedVBoxLayout(-10), l, when))
	}
	title := widget.NewLabelWithStyle("Problems", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	clearAll := widget.NewButton("Clear all", func() {
		n.problems = nil
		n.showCount()
	})
	closeBtn := n.u.newTipButton("", theme.CancelIcon(), "Close", func() { n.popup.Hide() })
	closeBtn.Importance = widget.LowImportance
	head := container.NewBorder(nil, nil, nil, container.NewHBox(clearAll, closeBtn), title)
	content := container.NewBorder(head, nil, nil, nil, container.NewVScroll(box))
	n.popup = widget.NewPopUp(container.New(fixedSize{fyne.NewSize(440, 320)}, content), n.u.win.Canvas())
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(n.button)
	x := max(pos.X+n.button.Size().Width-440, 0)
	n.popup.ShowAtPosition(fyne.NewPos(x, pos.Y+n.button.Size().Height))
}

func (n *noticeBar) remove(row fyne.CanvasObject) {
	delete(n.fromApp, row)
	delete(n.rows, row)
	n.view.Remove(row)
}

// texts are the toasts shown, oldest first (for tests).
func (n *noticeBar) texts() []string {
	var out []string
	for _, o := range n.view.Objects {
		out = append(out, o.(*toast).label.Text)
	}
	return out
}

// toast is one notice: an icon, the text, an optional action and a close
// button; a click anywhere on it dismisses it.
type toast struct {
	widget.BaseWidget
	n      *noticeBar
	label  *widget.Label
	action *widget.Button
	box    fyne.CanvasObject
}

func newToast(n *noticeBar, text string, isErr bool, action string, do func()) *toast {
	t := &toast{n: n, label: widget.NewLabel(text)}
	t.label.Wrapping = fyne.TextWrapWord
	icon := theme.InfoIcon()
	bgc := blendOver(theme.Color(theme.ColorNameOverlayBackground), theme.Color(theme.ColorNamePrimary), 0x30)
	if isErr {
		icon = theme.NewErrorThemedResource(theme.WarningIcon())
		bgc = blendOver(theme.Color(theme.ColorNameOverlayBackground), theme.Color(theme.ColorNameError), 0x40)
	}
	bg := canvas.NewRectangle(bgc)
	bg.CornerRadius = theme.InputRadiusSize()
	bg.StrokeColor = theme.Color(theme.ColorNameSeparator)
	bg.StrokeWidth = 1
	shadow := canvas.NewRectangle(color.NRGBA{A: 0x40})
	shadow.CornerRadius = theme.InputRadiusSize()
	closeBtn := n.u.newTipButton("", theme.CancelIcon(), "Dismiss", func() { n.remove(t) })
	closeBtn.Importance = widget.LowImportance
	right := container.NewHBox(closeBtn)
	if action != "" {
		t.action = widget.NewButton(action, func() {
			n.remove(t)
			do()
		})
		right = container.NewHBox(t.action, closeBtn)
	}
	t.box = container.NewStack(container.New(shadowOffset{}, shadow), bg,
		container.NewBorder(nil, nil, container.NewPadded(widget.NewIcon(icon)), container.NewCenter(right), t.label))
	t.ExtendBaseWidget(t)
	return t
}

func (t *toast) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(t.box) }

// Tapped dismisses the toast.
func (t *toast) Tapped(*fyne.PointEvent) { t.n.remove(t) }

// toastLayout places the toasts at the bottom right of the window, above
// the now-playing bar, the newest lowest.
type toastLayout struct{ u *UI }

func (l *toastLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding() * 2
	w := min(float32(toastWidth), size.Width-2*pad)
	bottom := size.Height - pad
	if l.u.bar != nil {
		bottom -= l.u.bar.Size().Height
	}
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		o.Resize(fyne.NewSize(w, o.MinSize().Height))
		h := o.MinSize().Height
		o.Resize(fyne.NewSize(w, h))
		bottom -= h
		o.Move(fyne.NewPos(size.Width-pad-w, bottom))
		bottom -= pad / 2
	}
}

func (l *toastLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(0, 0) }

// shadowOffset lays a toast's shadow 2 points below and right of it.
type shadowOffset struct{}

func (shadowOffset) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(2, 2))
		o.Resize(size)
	}
}

func (shadowOffset) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(0, 0) }

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// blendOver is tint laid over base with alpha a: an opaque colour, so a
// toast is readable over any content.
func blendOver(base, tint color.Color, a uint8) color.Color {
	br, bg, bb, _ := base.RGBA()
	tr, tg, tb, _ := tint.RGBA()
	k := float64(a) / 255
	mix := func(b, t uint32) uint8 { return uint8((float64(b>>8)*(1-k) + float64(t>>8)*k)) }
	return color.NRGBA{R: mix(br, tr), G: mix(bg, tg), B: mix(bb, tb), A: 0xff}
}

// confirmFor is how long a confirmation ("Saved.") stays under what it
// confirms.
const confirmFor = 4 * time.Second

// confirm shows a success message in l that goes by itself after
// confirmFor, or when the page is left: a "Saved." that stays says
// nothing about the next change.
func (u *UI) confirm(l *widget.Label, text string) {
	l.Importance = widget.SuccessImportance
	l.SetText(text)
	l.Show()
	u.confirmed = append(u.confirmed, l)
	u.confirmGen++
	gen := u.confirmGen
	if u.ticking {
		time.AfterFunc(confirmFor, func() {
			framegov.Do(func() {
				if u.confirmGen == gen && l.Importance == widget.SuccessImportance {
					l.Hide()
				}
			})
		})
	}
}

// warn shows an error message in l; it stays until the next message.
func (u *UI) warn(l *widget.Label, text string) {
	l.Importance = widget.DangerImportance
	l.SetText(text)
	l.Show()
}

// setChecked ticks or unticks c without running its OnChanged: the box
// shows a state, it is not the user changing it.
func setChecked(c *widget.Check, on bool) {
	f := c.OnChanged
	c.OnChanged = nil
	c.SetChecked(on)
	c.OnChanged = f
}

// unconfirm takes the confirmations shown away (a page change).
func (u *UI) unconfirm() {
	for _, l := range u.confirmed {
		if l.Importance == widget.SuccessImportance {
			l.Hide()
		}
	}
	u.confirmed = u.confirmed[:0]
}
