package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/furudesk/furudesk/devicesync"
)

// settingMDNSExclude is the settings key of the network interfaces mDNS
// stays off, a JSON array of names or patterns.
const settingMDNSExclude = "mdns_exclude"

// settings is what mdnsExclude needs of the database.
type settings interface {
	Setting(key string) (string, bool, error)
	SetSetting(key, value string) error
}

// mdnsExclude returns the interfaces mDNS stays off: those --mdns-exclude
// gave (values may list several, comma-separated; an empty one clears the
// list), which it stores for the launches without the flag, else the ones
// stored.
func mdnsExclude(s settings, flag []string, given bool) ([]string, error) {
	if !given {
		v, ok, err := s.Setting(settingMDNSExclude)
		if err != nil || !ok {
			return nil, err
		}
		var list []string
		if err := json.Unmarshal([]byte(v), &list); err != nil || devicesync.ValidateMDNSExclude(list) != nil {
			return nil, fmt.Errorf("the stored interfaces to keep mDNS off (%s) are not a list of interface names: start once with --mdns-exclude to replace them", v)
		}
		return list, nil
	}
	list := []string{}
	for _, v := range flag {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				list = append(list, name)
			}
		}
	}
	if err := devicesync.ValidateMDNSExclude(list); err != nil {
		return nil, fmt.Errorf("--mdns-exclude: %s", strings.TrimPrefix(err.Error(), "devicesync: "))
	}
	b, _ := json.Marshal(list)
	if err := s.SetSetting(settingMDNSExclude, string(b)); err != nil {
		return nil, err
	}
	return list, nil
}
