package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/furudesk/furudesk/app"
)

// ctlCache runs `cache`, `cache limit MB` and `cache clear`.
func ctlCache(a *app.App, req ctlRequest) (any, error) {
	switch {
	case len(req.Args) == 0:
		return a.Cache()
	case len(req.Args) == 2 && req.Args[0] == "limit":
		mb, err := strconv.ParseInt(req.Args[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("cache limit takes a size in megabytes, such as 2048, not %q", req.Args[1])
		}
		if err := a.SetCacheLimit(mb); err != nil {
			return nil, err
		}
		return ctlMessage(fmt.Sprintf("Tracks fetched from other devices now keep at most %d MB", mb)), nil
	case len(req.Args) == 1 && req.Args[0] == "clear":
		if err := a.ClearCache(); err != nil {
			return nil, err
		}
		return ctlMessage("Cache emptied (the track playing and the next stay)"), nil
	}
	return nil, fmt.Errorf("usage: cache [limit MB | clear]")
}

// ctlUploadLimit runs `upload-limit` and `upload-limit KBPS`.
func ctlUploadLimit(a *app.App, req ctlRequest) (any, error) {
	switch len(req.Args) {
	case 0:
		return map[string]int64{"upload_limit_kbps": a.UploadLimit()}, nil
	case 1:
		kbps, err := strconv.ParseInt(req.Args[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("upload-limit takes kilobytes per second, 0 for no limit, not %q", req.Args[0])
		}
		if err := a.SetUploadLimit(kbps); err != nil {
			return nil, err
		}
		if kbps == 0 {
			return ctlMessage("Uploads to other devices are not limited"), nil
		}
		return ctlMessage(fmt.Sprintf("Uploads to other devices are limited to %d KB/s", kbps)), nil
	}
	return nil, fmt.Errorf("usage: upload-limit [KB/s | 0]")
}

// ctlCarry runs `carry` and `carry on|off`.
func ctlCarry(a *app.App, req ctlRequest) (any, error) {
	if len(req.Args) == 0 {
		return map[string]bool{"carry": a.Carry()}, nil
	}
	if len(req.Args) == 1 && (req.Args[0] == "on" || req.Args[0] == "off") {
		on := req.Args[0] == "on"
		if err := a.SetCarry(on); err != nil {
			return nil, err
		}
		if on {
			return ctlMessage("This device carries other devices' traffic"), nil
		}
		return ctlMessage("This device no longer carries other devices' traffic"), nil
	}
	return nil, fmt.Errorf("usage: carry [on | off]")
}

// ctlPublicAddr runs `public-addr` (show), `public-addr ADDR...` (set)
// and `public-addr off` (clear).
func ctlPublicAddr(a *app.App, req ctlRequest) (any, error) {
	if len(req.Args) == 0 {
		return a.Reach(), nil
	}
	addrs := req.Args
	if len(addrs) == 1 && addrs[0] == "off" {
		addrs = nil
	}
	if err := a.SetPublicAddrs(addrs); err != nil {
		return nil, err
	}
	if addrs == nil {
		return ctlMessage("No public address: devices outside this network reach this one only through a member or a mapped port"), nil
	}
	return ctlMessage("Devices outside this network dial " + strings.Join(addrs, ", ")), nil
}

// ctlPortMap runs `portmap` (what the router answered) and `portmap
// on|off`.
func ctlPortMap(a *app.App, req ctlRequest) (any, error) {
	if len(req.Args) == 0 {
		return a.Reach().PortMap, nil
	}
	if len(req.Args) == 1 && (req.Args[0] == "on" || req.Args[0] == "off") {
		on := req.Args[0] == "on"
		if err := a.SetPortMap(on); err != nil {
			return nil, err
		}
		if on {
			return ctlMessage("Mapping this device's port on the router (UPnP-IGD or NAT-PMP): see ctl portmap for its answer"), nil
		}
		return ctlMessage("The port mapping on the router is removed"), nil
	}
	return nil, fmt.Errorf("usage: portmap [on | off]")
}
