package ui

import (
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
)

// nowPlaying is the bar at the bottom: cover, title, artist and album;
// shuffle, previous, play/pause, next, repeat; the seek slider with
// elapsed and total time; the device picker and the volume.
type nowPlaying struct {
	u    *UI
	view fyne.CanvasObject

	cover  *canvas.Image
	coverV coverView
	title  *widget.Label
	sub    *subtle
	heart  *tipButton // likes or unlikes the current track

	shuffle, prev, play, next, repeat *tipButton
	seek                              *widget.Slider
	elapsed, total                    *subtle
	dragging                          bool

	device  *tipButton
	volume  *widget.Slider
	volIcon *tipButton // mutes and unmutes
	// unmuteTo is the volume a mute left (0: none known, unmute to 50).
	unmuteTo int
	volWant  int // the volume the user asked for, -1 when none is pending
	volBusy  bool
}

func newNowPlaying(u *UI) *nowPlaying {
	n := &nowPlaying{u: u, volWant: -1}

	n.cover = canvas.NewImageFromImage(nil)
	n.cover.FillMode = canvas.ImageFillContain
	n.cover.ScaleMode = canvas.ImageScaleSmooth
	n.cover.CornerRadius = 4
	ph := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	ph.CornerRadius = 4
	coverBox := container.New(fixedSize{fyne.NewSize(60, 60)}, ph, container.NewCenter(container.New(fixedSize{fyne.NewSize(28, 28)}, widget.NewIcon(theme.NewDisabledResource(theme.MediaMusicIcon())))), n.cover)

	n.title = widget.NewLabelWithStyle("Nothing playing", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	n.title.Truncation = fyne.TextTruncateEllipsis
	n.sub = newSubtle("Pick something from your library")
	n.sub.Truncation = fyne.TextTruncateEllipsis
	heart := u.newTipButton("", iconHeartOutline, "Like", u.toggleLikeCurrent)
	n.heart = heart
	n.heart.Importance = widget.LowImportance
	n.heart.Hide()
	// The cover and the title open the now-playing view.
	open := newTapArea(u, container.NewBorder(nil, nil, coverBox, nil,
		container.NewVBox(layout.NewSpacer(), container.New(layout.NewCustomPaddedVBoxLayout(-14), n.title, n.sub), layout.NewSpacer())),
		func() string {
			if u.st.Track == nil {
				return ""
			}
			return n.title.Text + " — " + n.sub.Text
		}, u.openNowPlaying)
	left := container.NewBorder(nil, nil, nil, container.NewCenter(heart), open)

	shuffle := u.newTipButton("", iconShuffle, "Shuffle", func() {
		on := !u.st.Shuffle
		u.run("Could not change shuffle", func() error { return u.b.SetShuffle(on) })
	})
	prev := u.newTipButton("", theme.MediaSkipPreviousIcon(), "Previous (Ctrl+←)", u.prev)
	play := u.newTipButton("", theme.MediaPlayIcon(), "Play or pause (Space)", u.togglePlay)
	next := u.newTipButton("", theme.MediaSkipNextIcon(), "Next (Ctrl+→)", u.next)
	repeat := u.newTipButton("", iconRepeat, "Repeat: off, all, one", func() {
		mode := nextRepeat(u.st.Repeat)
		u.run("Could not change repeat", func() error { return u.b.SetRepeat(mode) })
	})
	n.shuffle, n.prev, n.play, n.next, n.repeat = shuffle, prev, play, next, repeat
	n.play.Importance = widget.HighImportance
	for _, b := range []*tipButton{n.shuffle, n.prev, n.next, n.repeat} {
		b.Importance = widget.LowImportance
	}
	transport := container.NewCenter(container.NewHBox(shuffle, prev, play, next, repeat))

	n.seek = widget.NewSlider(0, 1)
	n.seek.Step = 0.25
	n.seek.OnChanged = func(v float64) {
		// programmatic updates set Value directly, so this is the user
		n.dragging = true
		n.elapsed.SetText(formatDuration(time.Duration(v * float64(time.Second))))
	}
	n.seek.OnChangeEnded = func(v float64) {
		n.dragging = false
		u.seekTo(time.Duration(v * float64(time.Second)))
		u.win.Canvas().Unfocus() // keep space and arrows for the player
	}
	n.elapsed = newSubtle("0:00")
	n.total = newSubtle("0:00")
	timeBox := func(l *subtle, a fyne.TextAlign) fyne.CanvasObject {
		l.Alignment = a
		return container.New(fixedSize{fyne.NewSize(56, l.MinSize().Height)}, l)
	}
	seekRow := container.NewBorder(nil, nil, timeBox(n.elapsed, fyne.TextAlignTrailing), timeBox(n.total, fyne.TextAlignLeading), n.seek)
	center := container.NewVBox(transport, seekRow)

	device := u.newTipButton("This device", iconSpeaker, "Where the music plays: pick a device", n.showDeviceMenu).opening("menu")
	n.device = device
	n.device.Importance = widget.LowImportance
	n.device.Alignment = widget.ButtonAlignLeading
	n.volIcon = u.newTipButton("", theme.VolumeUpIcon(), "Mute (M)", n.toggleMute)
	n.volIcon.Importance = widget.LowImportance
	n.volume = widget.NewSlider(0, 100)
	n.volume.OnChanged = func(v float64) { n.setVolume(int(v)) }
	n.volume.OnChangeEnded = func(float64) { u.win.Canvas().Unfocus() }
	right := container.NewVBox(layout.NewSpacer(),
		container.NewHBox(device),
		container.NewBorder(nil, nil, n.volIcon, nil, n.volume),
		layout.NewSpacer())

	n.view = container.NewPadded(container.New(barLayout{}, left, center, right))
	n.showPosition()
	return n
}

func nextRepeat(mode string) string {
	switch mode {
	case "off", "":
		return "all"
	case "all":
		return "one"
	default:
		return "off"
	}
}

func (n *nowPlaying) update(st app.Status, first bool) {
	t := st.Track
	if t == nil {
		setText(n.title, "Nothing playing")
		setText(&n.sub.Label, "Pick something from your library")
		n.setCover("")
	} else {
		title := t.Title
		if title == "" {
			title = "Untitled"
		}
		setText(n.title, title)
		sub := joinArtists(t.Artists)
		if t.Album != "" {
			sub += " — " + t.Album
		}
		setText(&n.sub.Label, sub)
		n.setCover(n.u.cat.coverKey(t.ContentID, t.Album))
	}
	n.showLiked(st)
	icon := theme.MediaPlayIcon()
	if st.Playing {
		icon = theme.MediaPauseIcon()
	}
	if n.play.Icon != icon {
		n.play.SetIcon(icon)
	}
	setToggle(n.shuffle, st.Shuffle)
	rep := iconRepeat
	if st.Repeat == "one" {
		rep = iconRepeatOne
	}
	if n.repeat.Icon != rep {
		n.repeat.SetIcon(rep)
	}
	setToggle(n.repeat, st.Repeat == "all" || st.Repeat == "one")
	for _, b := range []*tipButton{n.prev, n.play, n.next} {
		// With nothing queued, Play plays the list shown.
		idle := t == nil && st.QueueLen == 0
		if idle && (b != n.play || n.u.cat == nil || len(n.u.cat.tracks) == 0) {
			b.Disable()
		} else {
			b.Enable()
		}
	}
	if t == nil {
		n.seek.Disable()
	} else {
		n.seek.Enable()
	}

	if !n.volBusy && n.volWant < 0 && int(n.volume.Value) != st.Volume {
		n.volume.Value = float64(st.Volume)
		n.volume.Refresh()
	}
	vi := theme.VolumeUpIcon()
	switch {
	case st.Volume == 0:
		vi = theme.VolumeMuteIcon()
	case st.Volume < 50:
		vi = theme.VolumeDownIcon()
	}
	if n.volIcon.Icon != vi {
		n.volIcon.SetIcon(vi)
		n.volIcon.tip = "Mute (M)"
		if st.Volume == 0 {
			n.volIcon.tip = "Unmute (M)"
		}
	}

	label, imp := "This device", widget.LowImportance
	if st.Owner != "" && st.Owner != st.DeviceID {
		label, imp = shorten(ownerName(st), maxNameOnButton), widget.HighImportance
	}
	if n.device.Text != label || n.device.Importance != imp {
		n.device.Text, n.device.Importance = label, imp
		n.device.Refresh()
	}
	n.showPosition()
}

// showLiked shows the heart of the current track: filled when liked.
func (n *nowPlaying) showLiked(st app.Status) {
	if st.Track == nil {
		n.heart.Hide()
		return
	}
	icon := iconHeartOutline
	if st.TrackLiked {
		icon = iconLiked
	}
	if n.heart.Icon != icon {
		n.heart.SetIcon(icon)
	}
	n.heart.Show()
}

// setToggle shows a toggle button as on (accent colour) or off.
func setToggle(b *tipButton, on bool) {
	imp := widget.LowImportance
	if on {
		imp = widget.HighImportance
	}
	if b.Importance != imp {
		b.Importance = imp
		b.Refresh()
	}
}

func (n *nowPlaying) setCover(key string) {
	n.coverV.img = n.cover
	n.coverV.show(n.u.covers, key)
}

// showPosition redraws the elapsed time and the slider from the
// extrapolated position (not while the user drags the slider).
func (n *nowPlaying) showPosition() {
	st := n.u.st
	if st.Track == nil {
		setSlider(n.seek, 0, 1)
		setText(&n.elapsed.Label, "0:00")
		setText(&n.total.Label, "0:00")
		return
	}
	total := time.Duration(st.Track.DurationMS) * time.Millisecond
	setText(&n.total.Label, formatDuration(total))
	if n.dragging {
		return
	}
	pos := n.u.position()
	setText(&n.elapsed.Label, formatDuration(pos))
	setSlider(n.seek, pos.Seconds(), max(total.Seconds(), 1))
}

// toggleMute mutes the volume, or gives back the volume the mute left.
func (n *nowPlaying) toggleMute() {
	cur := n.shownVolume()
	if cur > 0 {
		n.unmuteTo = cur
		n.showVolume(0)
		return
	}
	to := n.unmuteTo
	if to <= 0 {
		to = 50
	}
	n.showVolume(to)
}

// nudgeVolume turns the volume up or down by d (the volume keys).
func (n *nowPlaying) nudgeVolume(d int) {
	n.showVolume(max(0, min(100, n.shownVolume()+d)))
}

// shownVolume is the volume asked for last, else the one shown.
func (n *nowPlaying) shownVolume() int {
	if n.volWant >= 0 {
		return n.volWant
	}
	return int(n.volume.Value)
}

// showVolume moves the slider to v, which asks for it.
func (n *nowPlaying) showVolume(v int) {
	n.volume.SetValue(float64(v)) // OnChanged sends it
}

// setVolume sends the newest volume the user asked for; values superseded
// while a request is in flight are merged into the next one.
func (n *nowPlaying) setVolume(v int) {
	n.volWant = v
	if n.volBusy {
		return
	}
	n.volBusy = true
	want := v
	n.volWant = -1
	n.u.runThen(func() error { return n.u.b.SetVolume(want) }, func(err error) {
		n.volBusy = false
		if err != nil {
			n.u.showError("Could not change the volume: " + userError(err))
		}
		if n.volWant >= 0 {
			n.setVolume(n.volWant)
		}
	})
}

// showDeviceMenu pops up the group's devices; picking one transfers
// playback to it.
func (n *nowPlaying) showDeviceMenu() {
	n.u.popUpMenuAt(n.u.deviceMenu(), n.device)
}

// deviceMenu lists the devices of the group, the owner checked; devices
// the app would refuse a transfer to (not Selectable: offline peers) are
// shown disabled.
func (u *UI) deviceMenu() *fyne.Menu {
	head := fyne.NewMenuItem("Play on…", nil)
	head.Disabled = true
	items := []*fyne.MenuItem{head}
	for _, d := range u.st.Devices {
		d := d
		label := shorten(d.Shown(), maxNameInMenu) // a hub playing in a browser names it
		if d.Self {
			label += " (this device)"
		}
		if !d.Online && !d.Self {
			label += " — offline"
		}
		it := fyne.NewMenuItem(label, func() { u.transfer(d.DeviceID, d.Name) })
		it.Checked = d.DeviceID == u.st.Owner
		it.Disabled = !d.Selectable && !it.Checked
		items = append(items, it)
	}
	if len(u.st.Devices) == 0 {
		it := fyne.NewMenuItem("This device", func() { u.transfer(u.st.DeviceID, "this device") })
		it.Checked = true
		items = append(items, it)
	}
	items = append(items, fyne.NewMenuItemSeparator(),
		fyne.NewMenuItemWithIcon("Manage devices…", iconDevices, func() { u.clearSearch(); u.showPage(PageDevices) }))
	return fyne.NewMenu("", items...)
}

// transfer moves playback to a device of the group.
func (u *UI) transfer(to engine.DeviceID, name string) {
	if to == u.st.Owner {
		return
	}
	u.run("Could not move playback to "+name, func() error { return u.b.Transfer(to) })
}

// banner is the strip at the top while another device owns the output:
// what it does ("Playing on <name>", "Paused on <name>", "<name> has the
// output"), with a button to bring playback here.
type banner struct {
	u     *UI
	view  *fyne.Container
	label *widget.Label
	hint  *widget.Label
}

// The banner's second line: what the controls do, or that the owner is
// out of reach.
const (
	bannerHint            = "The controls here drive that device."
	bannerHintUnreachable = "It does not answer; Play here carries on here."
)

func newBanner(u *UI) *banner {
	b := &banner{u: u}
	b.label = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	b.label.Truncation = fyne.TextTruncateEllipsis
	hint := widget.NewLabel(bannerHint)
	hint.Truncation = fyne.TextTruncateEllipsis
	b.hint = hint
	here := widget.NewButtonWithIcon("Play here", iconSpeaker, func() { u.transfer(u.st.DeviceID, "this device") })
	bg := canvas.NewRectangle(withAlpha(theme.Color(theme.ColorNamePrimary), 0x40))
	row := container.NewBorder(nil, nil, widget.NewIcon(iconSpeaker), container.NewCenter(here), container.New(textRow{}, b.label, hint))
	b.view = container.NewStack(bg, container.NewPadded(row))
	b.view.Hide()
	return b
}

func (b *banner) update(st app.Status) {
	remote := st.Owner != "" && st.Owner != st.DeviceID
	if remote {
		setText(b.label, bannerText(st))
		hint := bannerHint
		if !ownerReachable(st) {
			hint = bannerHintUnreachable
		}
		setText(b.hint, hint)
	}
	if remote != b.view.Visible() {
		b.view.Hidden = !remote
		b.u.relayoutTop()
	}
}

// bannerText says what the device owning the output does: "Playing on
// <name>" only while it plays, "Paused on <name>" with a track loaded,
// "<name> has the output" when it has nothing to play.
func bannerText(st app.Status) string {
	name := ownerName(st)
	if !ownerReachable(st) {
		return name + " is out of reach"
	}
	switch ownerBadge(st) {
	case "Playing":
		return "Playing on " + name
	case "Paused":
		return "Paused on " + name
	default:
		return name + " has the output"
	}
}

// ownerReachable reports whether another device owning the output is
// online (a paused or playing state shown for one that is not is only its
// last word).
func ownerReachable(st app.Status) bool {
	for _, d := range st.Devices {
		if d.DeviceID == st.Owner {
			return d.Online || d.Self
		}
	}
	return true // not listed (yet): nothing says otherwise
}

// scanView is the scan progress at the bottom of the sidebar; after a
// scan that skipped files it names them, with a Details button listing
// each one and why it could not be read.
type scanView struct {
	u       *UI
	view    *fyne.Container
	label   *widget.Label
	bar     *widget.ProgressBar
	inf     *widget.ProgressBarInfinite
	details *widget.Button
	sc      app.ScanStatus // the status the label shows
}

// Bounds on what the scan view shows of each failure.
const (
	maxScanLabelNames = 2   // file names in the sidebar sentence
	maxScanName       = 32  // runes of one file name in the sidebar
	maxScanDetail     = 300 // runes of one path or reason in the dialog
)

func newScanView(u *UI) *scanView {
	s := &scanView{u: u, label: widget.NewLabel(""), bar: widget.NewProgressBar(), inf: widget.NewProgressBarInfinite()}
	s.label.Wrapping = fyne.TextWrapWord
	s.label.SizeName = theme.SizeNameCaptionText
	s.bar.TextFormatter = func() string { return "" }
	s.inf.Stop()
	s.inf.Hide()
	s.details = u.openingDialog(widget.NewButton("Details", s.showDetails))
	s.details.Importance = widget.LowImportance
	s.details.Hide()
	s.view = container.NewPadded(container.NewVBox(s.label, s.bar, s.inf, container.NewHBox(s.details)))
	s.view.Hide()
	return s
}

func (s *scanView) update(sc app.ScanStatus) {
	s.sc = sc
	switch {
	case sc.Running:
		s.view.Show()
		s.details.Hide()
		if sc.Found > 0 {
			setText(s.label, "Scanning your music… "+itoa(sc.Done)+" of "+itoa(sc.Found))
			s.inf.Stop()
			s.inf.Hide()
			s.bar.Show()
			if s.bar.Max != float64(sc.Found) || s.bar.Value != float64(sc.Done) {
				s.bar.Max = float64(sc.Found)
				s.bar.SetValue(float64(sc.Done))
			}
		} else {
			setText(s.label, "Looking for music…")
			s.bar.Hide()
			s.inf.Show()
			if !s.inf.Running() {
				s.inf.Start()
			}
		}
	case sc.Errors > 0 || len(sc.Failed) > 0:
		s.view.Show()
		s.inf.Stop()
		s.inf.Hide()
		s.bar.Hide()
		setText(s.label, scanFailedText(sc))
		if len(sc.Failed) > 0 {
			s.details.Show()
		} else {
			s.details.Hide()
		}
	default:
		s.inf.Stop()
		s.details.Hide()
		s.view.Hide()
	}
}

// scanFailedText is the sidebar's sentence after a scan that could not
// read some files: "Could not read a.mp3: not an audio file." for one,
// "Could not read 3 files: a.mp3, b.flac and 1 more." for several, or
// only the count when the app named none.
func scanFailedText(sc app.ScanStatus) string {
	n := max(sc.Errors, len(sc.Failed))
	if len(sc.Failed) == 0 {
		return plural(n, "file", "files") + " could not be read."
	}
	if n == 1 {
		f := sc.Failed[0]
		return "Could not read " + shorten(filepath.Base(f.Path), maxScanName) + ": " + shorten(strings.TrimSuffix(f.Reason, "."), maxScanDetail) + "."
	}
	var names []string
	for _, f := range sc.Failed[:min(len(sc.Failed), maxScanLabelNames)] {
		names = append(names, shorten(filepath.Base(f.Path), maxScanName))
	}
	text := "Could not read " + plural(n, "file", "files") + ": " + strings.Join(names, ", ")
	if more := n - len(names); more > 0 {
		text += " and " + itoa(more) + " more"
	}
	return text + "."
}

// showDetails lists the files the last scan could not read: each name,
// why, and where it is.
func (s *scanView) showDetails() {
	sc := s.sc
	box := container.NewVBox()
	for _, f := range sc.Failed {
		name := widget.NewLabelWithStyle(shorten(filepath.Base(f.Path), maxScanDetail), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		name.Wrapping = fyne.TextWrapBreak
		reason := widget.NewLabel(userSentence(shorten(f.Reason, maxScanDetail)))
		reason.Wrapping = fyne.TextWrapWord
		where := newSubtle(shorten(f.Path, maxScanDetail))
		where.Wrapping = fyne.TextWrapBreak
		where.SizeName = theme.SizeNameCaptionText
		box.Add(container.New(layout.NewCustomPaddedVBoxLayout(-10), name, reason, where))
	}
	if more := max(sc.Errors, len(sc.Failed)) - len(sc.Failed); more > 0 {
		box.Add(newSubtle("…and " + plural(more, "more file", "more files") + "."))
	}
	d := dialog.NewCustom("Files that could not be read", "Close", container.NewVScroll(box), s.u.win)
	d.Resize(fyne.NewSize(520, 420))
	s.u.showDialog(d, d.Hide)
}
