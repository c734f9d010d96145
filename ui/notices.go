package ui

import (
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
)

// Limits of the notice strip: at most noticeMax are shown (the oldest
// goes first); an information notice goes away by itself after
// noticeInfoTTL, an error stays until the user closes it.
const (
	noticeMax     = 4
	noticeInfoTTL = 6 * time.Second
)

// noticeBar shows messages for the user under the banner.
type noticeBar struct {
	u    *UI
	view *fyne.Container
	// fromApp maps the rows showing app notices to their IDs, so a notice
	// the app withdraws (the output works again) goes away. A row shows
	// several IDs when the app sent the same text more than once.
	fromApp map[fyne.CanvasObject][]uint64
	// rows says what each row shows, so the same text is never shown
	// twice.
	rows map[fyne.CanvasObject]noticeRow
}

// noticeRow is what one row of the strip shows.
type noticeRow struct {
	key     string // noticeKey of its text
	problem bool   // shown as a problem (error or warning)
}

func newNoticeBar(u *UI) *noticeBar {
	return &noticeBar{u: u, view: container.NewVBox(),
		fromApp: map[fyne.CanvasObject][]uint64{}, rows: map[fyne.CanvasObject]noticeRow{}}
}

func (n *noticeBar) info(text string) { n.add("info", text) }

// add shows a notice; level "error" (or "warning") is shown as a problem.
func (n *noticeBar) add(level, text string) { n.addRow(level, text) }

// addApp shows the app's notice id.
func (n *noticeBar) addApp(id uint64, level, text string) {
	row, ids := n.addRow(level, text)
	n.fromApp[row] = append(ids, id)
}

// noticeKey is what two notices must share to say the same thing: the
// text without surrounding space or a final full stop.
func noticeKey(text string) string {
	return strings.TrimSuffix(strings.TrimSpace(text), ".")
}

// withdraw removes the app notices shown that the app no longer lists,
// given its list (IDs ascending). The app keeps only its latest
// app.MaxNotices notices: from a full list, one older than the first
// listed may have aged out rather than been withdrawn, and stays until the
// user closes it.
func (n *noticeBar) withdraw(listed []uint64) {
	keep := make(map[uint64]bool, len(listed))
	for _, id := range listed {
		keep[id] = true
	}
	var gone []fyne.CanvasObject
	for row, ids := range n.fromApp {
		withdrawn := true
		for _, id := range ids {
			if keep[id] || (len(listed) >= app.MaxNotices && id < listed[0]) {
				withdrawn = false
			}
		}
		if withdrawn {
			gone = append(gone, row)
		}
	}
	for _, row := range gone {
		n.remove(row)
	}
}

// addRow shows a notice as the newest row. A row already saying the same
// text goes away (the new row takes its place at the end, and its
// level); ids are the app notice IDs that row showed.
func (n *noticeBar) addRow(level, text string) (row fyne.CanvasObject, ids []uint64) {
	key := noticeKey(text)
	for _, o := range n.view.Objects {
		if n.rows[o].key == key {
			ids = n.fromApp[o]
			n.remove(o)
			break
		}
	}
	isErr := level == "error" || level == "warning"
	icon := theme.InfoIcon()
	bgc := withAlpha(theme.Color(theme.ColorNamePrimary), 0x22)
	if isErr {
		icon = theme.NewErrorThemedResource(theme.WarningIcon())
		bgc = withAlpha(theme.Color(theme.ColorNameError), 0x30)
	}
	label := widget.NewLabel(text)
	label.Wrapping = fyne.TextWrapWord
	var box *fyne.Container
	closeBtn := widget.NewButtonWithIcon("", theme.CancelIcon(), func() { n.remove(box) })
	closeBtn.Importance = widget.LowImportance
	bg := canvas.NewRectangle(bgc)
	bg.CornerRadius = theme.InputRadiusSize()
	box = container.NewPadded(container.NewStack(bg,
		container.NewBorder(nil, nil, container.NewPadded(widget.NewIcon(icon)), closeBtn, label)))
	n.view.Add(box)
	n.rows[box] = noticeRow{key: key, problem: isErr}
	for len(n.view.Objects) > noticeMax {
		oldest := n.view.Objects[0]
		delete(n.fromApp, oldest)
		delete(n.rows, oldest)
		n.view.Remove(oldest)
	}
	n.u.relayoutTop()
	if !isErr && n.u.ticking {
		time.AfterFunc(noticeInfoTTL, func() { fyne.Do(func() { n.remove(box) }) })
	}
	return box, ids
}

func (n *noticeBar) remove(row fyne.CanvasObject) {
	delete(n.fromApp, row)
	delete(n.rows, row)
	n.view.Remove(row)
	n.u.relayoutTop()
}

// texts are the notices shown, oldest first (for tests).
func (n *noticeBar) texts() []string {
	var out []string
	for _, o := range n.view.Objects {
		stack := o.(*fyne.Container).Objects[0].(*fyne.Container)
		border := stack.Objects[1].(*fyne.Container)
		for _, c := range border.Objects {
			if l, ok := c.(*widget.Label); ok {
				out = append(out, l.Text)
			}
		}
	}
	return out
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}
