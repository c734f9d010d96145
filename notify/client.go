package notify

import (
	"context"
	"errors"
	"fmt"
	"html"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The notification service on the session bus.
const (
	BusName    = "org.freedesktop.Notifications"
	ObjectPath = "/org/freedesktop/Notifications"
	iface      = "org.freedesktop.Notifications"
)

// callWait bounds one call to the notification service: a desktop whose
// service hangs costs a notification, never the caller.
const callWait = 2 * time.Second

// ErrNoService is Show's error when no notification service runs.
var ErrNoService = errors.New("notify: no notification service on the session bus")

// Client shows notifications, each replacing the one it showed before.
// Its methods may be called from any goroutine.
type Client struct {
	conn *dbus.Conn

	mu     sync.Mutex
	lastID uint32
	markup *bool // whether the service takes markup in bodies, once asked
}

// NewClient uses conn, a connection to the session bus that the caller
// closes.
func NewClient(conn *dbus.Conn) *Client { return &Client{conn: conn} }

// Show shows n in place of the notification shown before.
func (c *Client) Show(n Notification) error {
	ctx, cancel := context.WithTimeout(context.Background(), callWait)
	defer cancel()
	obj := c.conn.Object(BusName, ObjectPath)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.markup == nil {
		var caps []string
		if err := obj.CallWithContext(ctx, iface+".GetCapabilities", 0).Store(&caps); err != nil {
			return serviceErr(err)
		}
		m := slices.Contains(caps, "body-markup")
		c.markup = &m
	}
	body := n.Body
	if *c.markup {
		body = html.EscapeString(body) // a title with & or < is text, not markup
	}
	hints := map[string]dbus.Variant{
		"desktop-entry": dbus.MakeVariant("furudesk"),
		"category":      dbus.MakeVariant("x-gnome.music"),
		"transient":     dbus.MakeVariant(true), // kept out of the notification history
	}
	if strings.HasPrefix(n.Icon, "file://") {
		hints["image-path"] = dbus.MakeVariant(n.Icon)
	}
	var id uint32
	err := obj.CallWithContext(ctx, iface+".Notify", 0, "furudesk", c.lastID, n.Icon, n.Summary, body,
		[]string{}, hints, int32(-1)).Store(&id)
	if err != nil {
		return serviceErr(err)
	}
	c.lastID = id
	return nil
}

func serviceErr(err error) error {
	var de dbus.Error
	if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" {
		return ErrNoService
	}
	return fmt.Errorf("notify: %w", err)
}
