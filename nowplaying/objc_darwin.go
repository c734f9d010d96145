//go:build darwin

package nowplaying

import (
	"fmt"
	"sync"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// The frameworks loaded. AppKit (NSImage) is only for the artwork; a
// window's process has it already.
const (
	mediaPlayerPath = "/System/Library/Frameworks/MediaPlayer.framework/MediaPlayer"
	appKitPath      = "/System/Library/Frameworks/AppKit.framework/AppKit"
)

// targetClassName is the Objective-C class whose instance is the target of
// the commands; one per process (an Objective-C class cannot be
// registered twice).
const targetClassName = "FurudeskRemoteCommandTarget"

// MPRemoteCommandHandlerStatus values.
const (
	handlerSuccess       = 0
	handlerCommandFailed = 200
)

// The selectors sent.
var (
	selAlloc                  = objc.RegisterName("alloc")
	selNew                    = objc.RegisterName("new")
	selRelease                = objc.RegisterName("release")
	selDrain                  = objc.RegisterName("drain")
	selInstancesRespond       = objc.RegisterName("instancesRespondToSelector:")
	selStringWithUTF8String   = objc.RegisterName("stringWithUTF8String:")
	selNumberWithDouble       = objc.RegisterName("numberWithDouble:")
	selDictionary             = objc.RegisterName("dictionary")
	selSetObjectForKey        = objc.RegisterName("setObject:forKey:")
	selSharedCommandCenter    = objc.RegisterName("sharedCommandCenter")
	selDefaultCenter          = objc.RegisterName("defaultCenter")
	selAddTargetAction        = objc.RegisterName("addTarget:action:")
	selRemoveTarget           = objc.RegisterName("removeTarget:")
	selSetEnabled             = objc.RegisterName("setEnabled:")
	selSetNowPlayingInfo      = objc.RegisterName("setNowPlayingInfo:")
	selSetPlaybackState       = objc.RegisterName("setPlaybackState:")
	selPositionTime           = objc.RegisterName("positionTime")
	selInitWithContentsOfFile = objc.RegisterName("initWithContentsOfFile:")
	selInitWithImage          = objc.RegisterName("initWithImage:")
	selIsMainThread           = objc.RegisterName("isMainThread")
)

// framework is the classes a session uses, looked up once.
type framework struct {
	commandCenter objc.Class // MPRemoteCommandCenter
	infoCenter    objc.Class // MPNowPlayingInfoCenter
	str           objc.Class // NSString
	num           objc.Class // NSNumber
	dict          objc.Class // NSMutableDictionary
	pool          objc.Class // NSAutoreleasePool
	thread        objc.Class // NSThread
	// image and artwork are NSImage and MPMediaItemArtwork; both 0 when
	// either is missing or the artwork does not answer initWithImage:
	// (the old initializer; the current one takes a block, which purego's
	// objc cannot make): no artwork then.
	image, artwork objc.Class
	target         objc.Class // targetClassName
}

var (
	loadOnce sync.Once
	loaded   framework
	loadErr  error
)

// load loads MediaPlayer.framework and registers the target class, once
// per process. Its error names what is missing.
func load() (*framework, error) {
	loadOnce.Do(func() { loadErr = loaded.load() })
	return &loaded, loadErr
}

func (f *framework) load() error {
	if _, err := purego.Dlopen(mediaPlayerPath, purego.RTLD_LAZY|purego.RTLD_GLOBAL); err != nil {
		return fmt.Errorf("nowplaying: load %s: %w", mediaPlayerPath, err)
	}
	for _, c := range []struct {
		to   *objc.Class
		name string
	}{
		{&f.commandCenter, "MPRemoteCommandCenter"},
		{&f.infoCenter, "MPNowPlayingInfoCenter"},
		{&f.str, "NSString"},
		{&f.num, "NSNumber"},
		{&f.dict, "NSMutableDictionary"},
		{&f.pool, "NSAutoreleasePool"},
		{&f.thread, "NSThread"},
	} {
		if *c.to = objc.GetClass(c.name); *c.to == 0 {
			return fmt.Errorf("nowplaying: no Objective-C class %s", c.name)
		}
	}
	// No AppKit is no artwork, not an error: GetClass says.
	_, _ = purego.Dlopen(appKitPath, purego.RTLD_LAZY|purego.RTLD_GLOBAL)
	f.image, f.artwork = objc.GetClass("NSImage"), objc.GetClass("MPMediaItemArtwork")
	if f.image == 0 || f.artwork == 0 ||
		!objc.Send[bool](objc.ID(f.artwork), selInstancesRespond, selInitWithImage) {
		f.image, f.artwork = 0, 0
	}
	methods := make([]objc.MethodDef, 0, NumCommands)
	for _, c := range Commands {
		methods = append(methods, objc.MethodDef{
			Cmd: objc.RegisterName(c.Action()),
			Fn: func(self objc.ID, cmd objc.SEL, event objc.ID) int {
				return handle(c, event)
			},
		})
	}
	var err error
	f.target, err = objc.RegisterClass(targetClassName, objc.GetClass("NSObject"), nil, nil, methods)
	if err != nil {
		return fmt.Errorf("nowplaying: register %s: %w", targetClassName, err)
	}
	return nil
}

// onMain reports whether the caller runs on the main thread. Options.Main
// is fyne.Do, which, once Fyne's loop has ended, runs its func on the
// caller's goroutine instead.
func (f *framework) onMain() bool {
	return objc.Send[bool](objc.ID(f.thread), selIsMainThread)
}

// nsString is an autoreleased NSString of s (valid UTF-8 without NUL:
// smtc's display strings are), 0 if NSString refused it.
func (f *framework) nsString(s string) objc.ID {
	return objc.ID(f.str).Send(selStringWithUTF8String, s)
}

// nsNumber is an autoreleased NSNumber of v.
func (f *framework) nsNumber(v float64) objc.ID {
	return objc.ID(f.num).Send(selNumberWithDouble, v)
}

// dictionary is an autoreleased NSMutableDictionary of es, plus artwork
// under KeyArtwork when it is not 0; 0 (nil: clear the info) when es is
// empty. A value NSString or NSNumber refused is left out: a nil object
// would raise.
func (f *framework) dictionary(es []Entry, artwork objc.ID) objc.ID {
	if len(es) == 0 {
		return 0
	}
	d := objc.ID(f.dict).Send(selDictionary)
	set := func(key string, v objc.ID) {
		if k := f.nsString(key); k != 0 && v != 0 {
			d.Send(selSetObjectForKey, v, k)
		}
	}
	for _, e := range es {
		if e.IsNumber {
			set(e.Key, f.nsNumber(e.Number))
		} else {
			set(e.Key, f.nsString(e.Text))
		}
	}
	set(KeyArtwork, artwork)
	return d
}

// artworkOf is a retained MPMediaItemArtwork of the image file at path,
// 0 for none (no artwork class, or NSImage could not read the file).
func (f *framework) artworkOf(path string) objc.ID {
	if path == "" || f.image == 0 || f.artwork == 0 {
		return 0
	}
	img := objc.ID(f.image).Send(selAlloc).Send(selInitWithContentsOfFile, f.nsString(path))
	if img == 0 {
		return 0
	}
	defer img.Send(selRelease)
	return objc.ID(f.artwork).Send(selAlloc).Send(selInitWithImage, img)
}
