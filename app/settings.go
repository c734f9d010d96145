package app

// Settings the actor keeps: the playback policy, the music folders, and
// the notices for the user.

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/furudesk/furudesk/engine"
	"github.com/furudesk/furudesk/storage"
)

func (a *actor) setConfig(cfg engine.Config, passive bool) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	old, oldPassive := a.cfg, a.passive
	a.cfg, a.passive = cfg, passive
	if err := a.e.SetConfig(a.effective()); err != nil {
		a.cfg, a.passive = old, oldPassive
		return err
	}
	if err := a.store.SetPlaybackConfig(cfg); err != nil {
		a.cfg, a.passive = old, oldPassive
		_ = a.e.SetConfig(a.effective())
		return err
	}
	if passive != oldPassive {
		v := "false"
		if passive {
			v = "true"
		}
		if err := a.store.SetSetting(settingPassive, v); err != nil {
			return err
		}
	}
	return nil
}

func (a *actor) addFolder(p string) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return err
	}
	if slices.Contains(a.folders, abs) {
		return nil
	}
	if len(a.folders) >= storage.MaxLibraryFolders {
		return fmt.Errorf("app: at most %d music folders", storage.MaxLibraryFolders)
	}
	next := append(slices.Clone(a.folders), abs)
	if err := a.store.SetLibraryFolders(next); err != nil {
		return err
	}
	a.folders = next
	return nil
}

func (a *actor) folder(p string, add bool) error {
	if add {
		if err := a.addFolder(p); err != nil {
			return err
		}
		if err := a.startLibrary(true); err != nil {
			return err
		}
		a.libRun.askedGen = a.libRun.scanGen
		return nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return err
	}
	i := slices.Index(a.folders, abs)
	if i < 0 {
		return fmt.Errorf("app: %s is not a music folder", p)
	}
	next := slices.Delete(slices.Clone(a.folders), i, i+1)
	if err := a.store.SetLibraryFolders(next); err != nil {
		return err
	}
	a.folders = next
	if _, err := a.store.DeleteTracksUnder(abs); err != nil {
		return err
	}
	a.libRun.version++
	if a.lib != nil {
		return a.startLibrary(false)
	}
	return nil
}

// notice adds a message for the user. The same text shown before is
// moved to the end as the newest instead of being listed twice.
func (a *actor) notice(level, text string) {
	a.notices = slices.DeleteFunc(a.notices, func(n Notice) bool { return n.Level == level && n.Text == text })
	a.noticeID++
	a.notices = append(a.notices, Notice{ID: a.noticeID, Level: level, Text: text})
	if len(a.notices) > MaxNotices {
		a.notices = slices.Delete(a.notices, 0, len(a.notices)-MaxNotices)
	}
	if level == "error" {
		a.log.Warn(text)
	} else {
		a.log.Info(text)
	}
}
