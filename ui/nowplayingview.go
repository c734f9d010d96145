package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
)

// nowPlayingView is the page the bar's cover or title opens: the cover
// large, the title, the artists and the album as links (to the artist,
// to the album), the device it plays on, and the queue up next.
type nowPlayingView struct {
	u      *UI
	view   fyne.CanvasObject
	cover  *canvas.Image
	coverV coverView

	title   *widget.Label
	artists *fyne.Container // a link per artist
	album   *widget.Hyperlink
	info    *subtle
	device  *tipButton // where it plays; opens the device picker
	next    *trackList
	nextIdx []int
	nothing *widget.Label
}

func newNowPlayingView(u *UI) *nowPlayingView {
	v := &nowPlayingView{u: u}
	v.cover = canvas.NewImageFromImage(nil)
	v.cover.FillMode = canvas.ImageFillContain
	v.cover.ScaleMode = canvas.ImageScaleSmooth
	v.cover.CornerRadius = 8
	ph := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	ph.CornerRadius = 8
	coverBox := container.New(squareLayout{max: 420}, ph,
		container.NewCenter(container.New(fixedSize{fyne.NewSize(96, 96)}, widget.NewIcon(theme.NewDisabledResource(theme.MediaMusicIcon())))), v.cover)

	v.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.title.SizeName = theme.SizeNameHeadingText
	// Long names are cut short: a wrapping title asked for its height at
	// the width of a letter, and links as wide as their names widened the
	// window past the screen.
	v.title.Truncation = fyne.TextTruncateEllipsis
	v.artists = container.New(textRow{})
	v.album = widget.NewHyperlink("", nil)
	v.album.Truncation = fyne.TextTruncateEllipsis
	v.album.OnTapped = v.openAlbum
	v.info = newSubtle("")
	// Where it plays is a button that says what it does: it picks another
	// device (a blue line looked like a link and did nothing).
	v.device = u.newTipButton("", iconSpeaker, "Where the music plays: pick a device", func() {
		u.popUpMenuAt(u.deviceMenu(), v.device)
	}).opening("menu")
	v.device.Importance = widget.LowImportance
	v.device.Alignment = widget.ButtonAlignLeading
	back := widget.NewButtonWithIcon("Back", theme.NavigateBackIcon(), u.closeNowPlaying)
	back.Importance = widget.LowImportance
	queue := widget.NewButtonWithIcon("Open the queue", iconQueue, func() { u.showPage(PageQueue) })
	queue.Importance = widget.LowImportance

	tl := newTrackList(u, listConfig{view: "nowplaying", allowed: listColumns, defaults: colsOf(colPos, colTitle, colArtist, colTime)}, listHooks{
		activate: func(rows []int) {
			q := v.nextIdx[rows[0]]
			u.run("Could not play that track", func() error { return u.b.JumpTo(q) })
		},
		menu: func(rows []int) *fyne.Menu {
			qi := make([]int, len(rows))
			for i, r := range rows {
				qi[i] = v.nextIdx[r]
			}
			return u.queue.menu(u.queue.next, qi)
		},
		current: func(int) bool { return false },
	})
	v.next = tl
	upNext := newSubtleWithStyle("UP NEXT", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	upNext.SizeName = theme.SizeNameCaptionText
	v.nothing = widget.NewLabel("Nothing is playing. Pick something in your library.")
	v.nothing.Hide()

	text := container.NewVBox(v.title, v.artists, v.album, v.info, v.device)
	head := container.NewBorder(nil, nil, nil, nil, text)
	right := container.NewBorder(container.NewVBox(head, widget.NewSeparator(),
		container.NewBorder(nil, nil, upNext, queue)), nil, nil, nil, tl.view)
	body := container.New(&nowLayout{}, coverBox, right)
	v.view = container.NewBorder(container.NewHBox(back, layout.NewSpacer()), nil, nil, nil,
		container.NewStack(body, container.NewCenter(v.nothing)))
	return v
}

func (v *nowPlayingView) update(st, prev app.Status, first bool) {
	if first || st.Track == nil != (prev.Track == nil) || st.Track != nil && prev.Track != nil &&
		(st.Track.ContentID != prev.Track.ContentID || st.Track.Title != prev.Track.Title || st.Track.Album != prev.Track.Album) ||
		st.Owner != prev.Owner || st.Index != prev.Index || st.Playing != prev.Playing || !sameQueue(st.Queue, prev.Queue) ||
		!slices.Equal(st.Order, prev.Order) || !slices.Equal(st.Devices, prev.Devices) {
		v.render()
	}
}

// render shows the current status.
func (v *nowPlayingView) render() {
	u, st := v.u, v.u.st
	t := st.Track
	if t == nil {
		v.nothing.Show()
		v.title.SetText("")
		v.artists.RemoveAll()
		v.album.SetText("")
		v.info.SetText("")
		v.device.SetText("")
		v.setCover("")
		v.nextIdx = nil
		v.next.set(nil)
		return
	}
	v.nothing.Hide()
	v.title.SetText(orUntitled(t.Title))
	v.artists.RemoveAll()
	for i, a := range t.Artists {
		if i > 0 {
			v.artists.Add(widget.NewLabel("·"))
		}
		name := a
		l := widget.NewHyperlink(name, nil)
		l.Truncation = fyne.TextTruncateEllipsis
		l.OnTapped = func() { u.goToArtist(name) }
		v.artists.Add(l)
	}
	if len(t.Artists) == 0 {
		v.artists.Add(widget.NewLabel("Unknown artist"))
	}
	v.album.SetText(orUnknown(t.Album, "album"))
	info := formatDuration(msDuration(t.DurationMS))
	if lt, ok := u.cat.byContentID(t.ContentID); ok && lt.Album == t.Album {
		if lt.Year > 0 {
			info = itoa(int(lt.Year)) + " · " + info
		}
		if lt.Genre != "" {
			info += " · " + lt.Genre
		}
	}
	v.info.SetText(info)
	where := "Playing on this device"
	if !st.Playing {
		where = "Paused on this device"
	}
	if st.Owner != "" && st.Owner != st.DeviceID {
		where = bannerText(st)
	}
	v.device.SetText(shorten(where, maxNameInMenu)) // a button does not truncate
	v.setCover(u.cat.coverKey(t.ContentID, t.Album))

	// Up next: the play order after the current entry.
	order := u.queue.playOrder()
	pos := max(slices.Index(order, st.Index), 0)
	v.nextIdx = slices.Clone(order[min(pos+1, len(order)):])
	tracks := make([]*track, len(v.nextIdx))
	for i, q := range v.nextIdx {
		it := st.Queue[q]
		tracks[i] = u.trackFor(it.ContentID, it.Title, it.Artists, it.Album, it.DurationMS)
	}
	v.next.setKeep(tracks, true)
}

func (v *nowPlayingView) setCover(key string) {
	v.coverV.img = v.cover
	v.coverV.show(v.u.covers, key)
}

// openAlbum goes to the album of the track playing.
func (v *nowPlayingView) openAlbum() {
	if t := v.u.st.Track; t != nil {
		v.u.goToAlbumNamed(t.Album, t.Artists)
	}
}

// openNowPlaying shows the now-playing view.
func (u *UI) openNowPlaying() {
	u.clearSearch()
	u.showPage(PageNowPlaying)
}

// closeNowPlaying goes back to the page it was opened from.
func (u *UI) closeNowPlaying() {
	back := u.back
	if _, ok := u.pages[back]; !ok || back == PageNowPlaying {
		back = PageTracks
	}
	u.showPage(back)
}

// squareLayout keeps its objects square, as large as fits up to max.
type squareLayout struct{ max float32 }

func (l squareLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	s := min(size.Width, size.Height, l.max)
	for _, o := range objs {
		o.Move(fyne.NewPos((size.Width-s)/2, 0))
		o.Resize(fyne.NewSize(s, s))
	}
}

func (l squareLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(160, 160) }

// nowLayout puts the cover left (up to 40% of the width) and the text and
// the queue right of it.
type nowLayout struct{}

func (nowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding() * 4
	cw := min(size.Width*0.4, size.Height, 420)
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(cw, cw))
	objs[1].Move(fyne.NewPos(cw+pad, 0))
	objs[1].Resize(fyne.NewSize(max(size.Width-cw-pad, 0), size.Height))
}

func (nowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(160+objs[1].MinSize().Width, max(160, objs[1].MinSize().Height))
}
