package ui

// The settings of the group library on this device: the cache of tracks
// played from other devices (its size, what it holds, clearing it) and the
// limit of what this device sends to the others.

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/internal/framegov"
)

// sharingCard is the "Music from other devices" card of the settings.
type sharingCard struct {
	u      *UI
	view   fyne.CanvasObject
	usage  *subtle
	limit  *wheelEntry // megabytes
	upload *wheelEntry // KB/s, 0: none
	carry  *widget.Check
	msg    *widget.Label
	places uint64 // the places version the usage was read at
	read   bool
}

func newSharingCard(u *UI, page func() *container.Scroll) *sharingCard {
	c := &sharingCard{u: u, usage: newSubtle(""), limit: newWheelEntry(page), upload: newWheelEntry(page), msg: widget.NewLabel("")}
	c.usage.Wrapping = fyne.TextWrapWord
	c.msg.Wrapping = fyne.TextWrapWord
	c.msg.Hide()
	form := widget.NewForm(
		widget.NewFormItem("Keep at most (MB)", c.limit),
		widget.NewFormItem("Send at most (KB/s)", c.upload))
	form.Items[0].HintText = "Tracks played from other devices stay here, so they play again when those devices are off. The oldest go first; the playing and the next track never."
	form.Items[1].HintText = "What the other devices may fetch from this one each second, 0 for no limit."
	c.carry = widget.NewCheck("Carry other devices' traffic", nil)
	carryHint := newSubtle("Connects devices of your group that cannot reach each other directly (a laptop and a desktop behind different routers) through this one. They stay encrypted end to end. On for an always-on box.")
	carryHint.Wrapping = fyne.TextWrapWord
	apply := widget.NewButtonWithIcon("Apply", theme.ConfirmIcon(), c.apply)
	clearBtn := widget.NewButtonWithIcon("Clear saved tracks", theme.DeleteIcon(), c.clear)
	c.view = widget.NewCard("Music from other devices", "Every device of your group plays the tracks of the others.",
		container.NewVBox(c.usage, form, c.msg, container.NewHBox(apply, clearBtn), c.carry, carryHint))
	return c
}

// update reads the cache's usage again when it may have changed (a
// track saved or evicted moves the places version) while the settings
// are shown.
func (c *sharingCard) update(st app.Status) {
	if c.u.page != PageSettings || (c.read && st.PlacesVersion == c.places) {
		return
	}
	first := !c.read
	c.places, c.read = st.PlacesVersion, true
	c.reload(first)
}

// reload reads the usage and, when fill, the limits into the form.
func (c *sharingCard) reload(fill bool) {
	u := c.u
	u.spawn(func() {
		cs, err := u.b.Cache()
		up := u.b.UploadLimit()
		carry := u.b.Carry()
		framegov.Do(func() {
			if c.carry.OnChanged == nil || fill {
				setChecked(c.carry, carry)
				c.carry.OnChanged = c.setCarry
			}
			if err != nil {
				c.usage.SetText(userError(err))
				return
			}
			c.usage.SetText(cacheText(cs))
			if fill || c.limit.Text == "" {
				c.limit.SetText(strconv.FormatInt(cs.LimitMB, 10))
				c.upload.SetText(strconv.FormatInt(up, 10))
			}
		})
	})
}

// cacheText says what the cache holds: "120 MB in 14 tracks, of 2 GB".
func cacheText(cs app.CacheStatus) string {
	if cs.Tracks == 0 {
		return "No tracks of other devices are saved here yet (up to " + sizeText(cs.Limit) + ")."
	}
	return fmt.Sprintf("%s in %s saved here, of %s.", sizeText(cs.Bytes), plural(cs.Tracks, "track", "tracks"), sizeText(cs.Limit))
}

// sizeText is a size in bytes in words: "820 KB", "120 MB", "2.0 GB".
func sizeText(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%d MB", b>>20)
	}
	return fmt.Sprintf("%d KB", (b+1023)>>10)
}

func (c *sharingCard) apply() {
	mb, err1 := strconv.ParseInt(strings.TrimSpace(c.limit.Text), 10, 64)
	kbps, err2 := strconv.ParseInt(strings.TrimSpace(c.upload.Text), 10, 64)
	switch {
	case err1 != nil:
		c.u.warn(c.msg, "The cache size is a number of megabytes, such as 2048.")
		return
	case err2 != nil || kbps < 0:
		c.u.warn(c.msg, "The upload limit is a number of KB/s, 0 for none.")
		return
	}
	c.u.runThen(func() error {
		if err := c.u.b.SetCacheLimit(mb); err != nil {
			return err
		}
		return c.u.b.SetUploadLimit(kbps)
	}, func(err error) {
		if err != nil {
			c.u.warn(c.msg, "Could not apply: "+userError(err))
			return
		}
		c.u.confirm(c.msg, "Applied.")
		c.reload(false)
	})
}

// setCarry applies the carry check box at once.
func (c *sharingCard) setCarry(on bool) {
	c.u.runThen(func() error { return c.u.b.SetCarry(on) }, func(err error) {
		if err != nil {
			c.u.warn(c.msg, "Could not change it: "+userError(err))
			c.reload(true)
			return
		}
		if on {
			c.u.confirm(c.msg, "This device now carries other devices' traffic.")
		} else {
			c.u.confirm(c.msg, "This device no longer carries other devices' traffic.")
		}
	})
}

func (c *sharingCard) clear() {
	c.u.runThen(c.u.b.ClearCache, func(err error) {
		if err != nil {
			c.u.warn(c.msg, "Could not clear: "+userError(err))
			return
		}
		c.u.confirm(c.msg, "Cleared (but for the track playing and the next).")
		c.reload(false)
	})
}
