package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/furudesk/furudesk/app"
	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/library"
)

// settingsPage holds music folders, the device name, the always-on server
// switch, this device's volume leveling (ReplayGain) and the playback
// coordination settings.
type settingsPage struct {
	u    *UI
	view fyne.CanvasObject

	folders  *fyne.Container
	rescan   *widget.Button
	scanLine *subtle

	name    *wheelEntry
	nameMsg *widget.Label
	passive *widget.Check
	passMsg *widget.Label
	gain    *widget.Select
	gainMsg *widget.Label

	claim, failover, takePaused *widget.Check
	discovery, timeout          *wheelEntry
	cfgMsg                      *widget.Label
	cfgShown                    engine.Config // what the form was last filled with
	filling                     bool

	sharing *sharingCard
	outside *outsideCard
	web     *webCard // nil without Options.Web
}

func newSettingsPage(u *UI) *settingsPage {
	p := &settingsPage{u: u, folders: container.NewVBox()}

	add := u.openingDialog(widget.NewButtonWithIcon("Add folder…", theme.FolderNewIcon(), u.pickFolder))
	p.rescan = widget.NewButtonWithIcon("Rescan", theme.ViewRefreshIcon(), func() {
		u.run("Could not rescan", u.b.Rescan)
	})
	p.scanLine = newSubtle("")
	music := widget.NewCard("Music folders", "furudesk watches these folders and picks up changes by itself.",
		container.NewVBox(p.folders, container.NewHBox(add, p.rescan, p.scanLine)))

	p.name = newWheelEntry(p.scroll)
	p.name.SetPlaceHolder("e.g. Living room")
	p.nameMsg = widget.NewLabel("")
	p.nameMsg.Hide()
	saveName := widget.NewButton("Rename", p.saveName)
	p.passive = widget.NewCheck("Always-on server (passive)", p.setPassive)
	p.passMsg = widget.NewLabel("")
	p.passMsg.Hide()
	passHint := newSubtle("A passive device never starts playing by itself; it plays when you send playback to it.")
	passHint.Wrapping = fyne.TextWrapWord
	device := widget.NewCard("This device", "", container.NewVBox(
		widget.NewForm(widget.NewFormItem("Name", container.NewBorder(nil, nil, nil, saveName, p.name))),
		p.nameMsg, p.passive, passHint, p.passMsg))

	p.gain = widget.NewSelect(gainModeLabels, p.setGain)
	p.gainMsg = widget.NewLabel("")
	p.gainMsg.Hide()
	gainHint := newSubtle("Evens out loudness between tracks with the ReplayGain tags of your files (R128 for Opus, " +
		"iTunes Sound Check), and never lifts a track into clipping. A setting of this device only.")
	gainHint.Wrapping = fyne.TextWrapWord
	sound := widget.NewCard("Sound on this device", "", container.NewVBox(
		widget.NewForm(widget.NewFormItem("Volume leveling", p.gain)), gainHint, p.gainMsg))

	def := engine.DefaultConfig()
	p.claim = widget.NewCheck("Take over playback when this device starts", nil)
	p.failover = widget.NewCheck("Continue here when the playing device disappears", nil)
	p.takePaused = widget.NewCheck("Take over at startup even when playback is paused elsewhere", nil)
	p.discovery = newWheelEntry(p.scroll)
	p.timeout = newWheelEntry(p.scroll)
	form := widget.NewForm(
		widget.NewFormItem(fieldDiscovery+" (milliseconds)", p.discovery),
		widget.NewFormItem(fieldOwnerTimeout+" (milliseconds)", p.timeout))
	form.Items[0].HintText = fmt.Sprintf("How long this device looks for the others when it starts, 0 to %d (one minute). Default %d (%s).",
		engine.MaxDiscoveryMS, def.DiscoveryMS, msInWords(def.DiscoveryMS))
	form.Items[1].HintText = fmt.Sprintf("How long a playing device that went silent is trusted before another takes over. Default %d (%s).",
		def.OwnerTimeoutMS, msInWords(def.OwnerTimeoutMS))
	p.cfgMsg = widget.NewLabel("")
	p.cfgMsg.Wrapping = fyne.TextWrapWord
	p.cfgMsg.Hide()
	apply := widget.NewButtonWithIcon("Apply", theme.ConfirmIcon(), p.applyConfig)
	apply.Importance = widget.HighImportance
	reset := widget.NewButtonWithIcon("Reset to defaults", theme.ContentUndoIcon(), func() {
		p.fill(engine.DefaultConfig())
		p.applyConfig()
	})
	playback := widget.NewCard("Playback across devices", "",
		container.NewVBox(p.claim, p.failover, p.takePaused, form, p.cfgMsg, container.NewHBox(apply, reset)))

	look := newSubtle("furudesk follows your system's light or dark appearance.")
	appearance := widget.NewCard("Appearance", "", look)

	p.sharing = newSharingCard(u, p.scroll)
	p.outside = newOutsideCard(u)
	cards := container.NewVBox(music, device, sound, playback, p.sharing.view, p.outside.view)
	if w := u.opts.Web; w != nil {
		p.web = newWebCard(u, w)
		cards.Add(p.web.view)
	}
	if d := u.opts.Desktop; d != nil {
		cards.Add(widget.NewCard("Desktop", "", d))
	}
	cards.Add(u.dropChoice())
	cards.Add(appearance)
	p.view = container.NewVScroll(cards)
	return p
}

// scroll is the page's scroll (nil while it is built).
func (p *settingsPage) scroll() *container.Scroll {
	s, _ := p.view.(*container.Scroll)
	return s
}

func (p *settingsPage) update(st, prev app.Status, first bool) {
	if first || !sameStrings(st.Folders, prev.Folders) || !sameStrings(st.Scan.Missing, prev.Scan.Missing) {
		p.renderFolders(st.Folders, st.Scan.Missing)
	}
	p.sharing.update(st)
	p.outside.update(st, first)
	if p.web != nil {
		p.web.update()
	}
	if first || st.DeviceName != prev.DeviceName {
		p.name.SetText(st.DeviceName)
	}
	if first || st.Passive != prev.Passive {
		p.filling = true
		p.passive.SetChecked(st.Passive)
		p.filling = false
	}
	if first || st.ReplayGain != prev.ReplayGain {
		p.filling = true
		p.gain.SetSelected(gainModeLabel(st.ReplayGain))
		p.filling = false
	}
	if first || st.Config != prev.Config {
		// the form follows the applied settings unless the user is
		// editing it (it still shows what was last filled in)
		if first || p.formConfigText() == configText(p.cfgShown) {
			p.fill(st.Config)
		}
	}
	switch {
	case st.Scan.Running:
		p.rescan.Disable()
		setText(&p.scanLine.Label, fmt.Sprintf("Scanning… %d of %d", st.Scan.Done, st.Scan.Found))
	default:
		p.rescan.Enable()
		setText(&p.scanLine.Label, "")
	}
}

func sameStrings(a, b []string) bool {
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

// renderFolders lists the music folders, a missing one marked so: its
// tracks left the library until it is back (Rescan) or removed.
func (p *settingsPage) renderFolders(fs, missing []string) {
	u := p.u
	p.folders.RemoveAll()
	if len(fs) == 0 {
		p.folders.Add(newSubtle("No music folders yet."))
		return
	}
	for _, f := range fs {
		f := f
		l := widget.NewLabel(f)
		l.Truncation = fyne.TextTruncateEllipsis
		rm := widget.NewButtonWithIcon("Remove", theme.ContentRemoveIcon(), func() {
			u.runThen(func() error { return u.b.RemoveFolder(f) }, func(err error) {
				if err != nil {
					u.showError("Could not remove " + f + ": " + userError(err))
				}
			})
		})
		rm.Importance = widget.LowImportance
		icon := widget.NewIcon(theme.FolderIcon())
		if slices.Contains(missing, f) {
			l.SetText(f + " — missing")
			l.Importance = widget.WarningImportance
			icon.SetResource(theme.NewWarningThemedResource(theme.WarningIcon()))
		}
		p.folders.Add(container.NewBorder(nil, nil, icon, rm, l))
	}
}

func (p *settingsPage) saveName() {
	name := strings.TrimSpace(p.name.Text)
	if name == "" {
		p.u.warn(p.nameMsg, "Give this device a name.")
		return
	}
	p.u.runThen(func() error { return p.u.b.SetDeviceName(name) }, func(err error) {
		if err != nil {
			p.u.warn(p.nameMsg, "Could not rename: "+userError(err))
		} else {
			p.u.confirm(p.nameMsg, "Renamed.")
		}
	})
}

func (p *settingsPage) setPassive(on bool) {
	if p.filling {
		return
	}
	p.u.runThen(func() error { return p.u.b.SetPassive(on) }, func(err error) {
		if err != nil {
			p.u.warn(p.passMsg, "Could not change it: "+userError(err))
			p.filling = true
			p.passive.SetChecked(p.u.st.Passive)
			p.filling = false
			return
		}
		p.passMsg.Hide()
	})
}

// The ReplayGain modes as the Settings page names them, in its order.
var (
	gainModes      = []library.GainMode{library.GainOff, library.GainTrack, library.GainAlbum, library.GainAuto}
	gainModeLabels = []string{"Off", "Track gain", "Album gain", "Auto: album gain while an album plays in order"}
)

func gainModeLabel(m library.GainMode) string {
	for i, g := range gainModes {
		if g == m {
			return gainModeLabels[i]
		}
	}
	return ""
}

func (p *settingsPage) setGain(label string) {
	if p.filling {
		return
	}
	var mode library.GainMode
	for i, l := range gainModeLabels {
		if l == label {
			mode = gainModes[i]
		}
	}
	p.u.runThen(func() error { return p.u.b.SetReplayGain(string(mode)) }, func(err error) {
		if err != nil {
			p.u.warn(p.gainMsg, "Could not change it: "+userError(err))
			p.filling = true
			p.gain.SetSelected(gainModeLabel(p.u.st.ReplayGain))
			p.filling = false
			return
		}
		p.gainMsg.Hide()
	})
}

// fill shows cfg in the playback form.
func (p *settingsPage) fill(c engine.Config) {
	p.cfgShown = c
	p.claim.SetChecked(c.ClaimOnStartup)
	p.failover.SetChecked(c.AutomaticFailover)
	p.takePaused.SetChecked(c.TakePausedOnStartup)
	p.discovery.SetText(strconv.FormatUint(c.DiscoveryMS, 10))
	p.timeout.SetText(strconv.FormatUint(c.OwnerTimeoutMS, 10))
}

func configText(c engine.Config) string {
	return fmt.Sprint(c.ClaimOnStartup, c.AutomaticFailover, c.TakePausedOnStartup, c.DiscoveryMS, c.OwnerTimeoutMS)
}

func (p *settingsPage) formConfigText() string {
	return fmt.Sprint(p.claim.Checked, p.failover.Checked, p.takePaused.Checked,
		strings.TrimSpace(p.discovery.Text), strings.TrimSpace(p.timeout.Text))
}

// The names of the playback form's number fields, as its labels and its
// messages say them.
const (
	fieldDiscovery    = "Startup wait"
	fieldOwnerTimeout = "Playing-device timeout"
)

// msInWords says a whole number of milliseconds in seconds, minutes or
// hours: "3 seconds", "2 minutes", "1500 milliseconds".
func msInWords(ms uint64) string {
	switch {
	case ms != 0 && ms%3_600_000 == 0:
		return plural(int(ms/3_600_000), "hour", "hours")
	case ms != 0 && ms%60_000 == 0:
		return plural(int(ms/60_000), "minute", "minutes")
	case ms != 0 && ms%1000 == 0:
		return plural(int(ms/1000), "second", "seconds")
	default:
		return plural(int(ms), "millisecond", "milliseconds")
	}
}

// parseForm reads the playback form; an error is a sentence naming the
// field.
func (p *settingsPage) parseForm() (engine.Config, error) {
	c := engine.Config{
		ClaimOnStartup:      p.claim.Checked,
		AutomaticFailover:   p.failover.Checked,
		TakePausedOnStartup: p.takePaused.Checked,
	}
	num := func(label, s string) (uint64, error) {
		v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s must be a whole number of milliseconds, not “%s”", label, strings.TrimSpace(s))
		}
		return v, nil
	}
	var err error
	if c.DiscoveryMS, err = num(fieldDiscovery, p.discovery.Text); err != nil {
		return c, err
	}
	if c.OwnerTimeoutMS, err = num(fieldOwnerTimeout, p.timeout.Text); err != nil {
		return c, err
	}
	if c.DiscoveryMS > engine.MaxDiscoveryMS {
		return c, fmt.Errorf("%s must be at most %d milliseconds (one minute), not %d", fieldDiscovery, engine.MaxDiscoveryMS, c.DiscoveryMS)
	}
	if c.OwnerTimeoutMS < engine.MinOwnerTimeoutMS || c.OwnerTimeoutMS > engine.MaxOwnerTimeoutMS {
		return c, fmt.Errorf("%s must be between %d and %d milliseconds (one day), not %d", fieldOwnerTimeout, engine.MinOwnerTimeoutMS, engine.MaxOwnerTimeoutMS, c.OwnerTimeoutMS)
	}
	return c, c.Validate()
}

// applyConfig validates and saves the playback form. On any error the
// message is shown and the settings in effect stay as they were.
func (p *settingsPage) applyConfig() {
	cfg, err := p.parseForm()
	if err != nil {
		p.showCfgError(err)
		return
	}
	p.u.runThen(func() error { return p.u.b.SetPlaybackConfig(cfg) }, func(err error) {
		if err != nil {
			p.showCfgError(err)
			return
		}
		p.cfgShown = cfg
		p.u.confirm(p.cfgMsg, "Saved.")
	})
}

// cfgFieldNames are the form's names for the settings app.UserMessage
// names by their JSON keys.
var cfgFieldNames = strings.NewReplacer("owner_timeout_ms", strings.ToLower(fieldOwnerTimeout), "discovery_ms", strings.ToLower(fieldDiscovery))

func (p *settingsPage) showCfgError(err error) {
	p.u.warn(p.cfgMsg, userSentence(cfgFieldNames.Replace(app.UserMessage(err)))+" Nothing was changed.")
}
