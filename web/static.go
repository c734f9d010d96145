package web

import (
	"embed"
	"net/http"
	"path"
)

// The page: plain HTML, CSS and JavaScript, embedded; nothing is fetched
// from elsewhere.
//
//go:embed static
var staticFS embed.FS

var staticTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
}

// serveStatic serves the page's files; every other path is the page
// itself, which shows pairing or the player.
func serveStatic(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "Only GET here.", http.StatusMethodNotAllowed)
		return
	}
	name := "static/index.html"
	if p := path.Clean(r.URL.Path); path.Dir(p) == "/static" {
		name = "static/" + path.Base(p)
	} else if p != "/" {
		http.Error(w, "Nothing here.", http.StatusNotFound)
		return
	}
	b, err := staticFS.ReadFile(name)
	if err != nil {
		http.Error(w, "Nothing here.", http.StatusNotFound)
		return
	}
	ct := staticTypes[path.Ext(name)]
	if ct == "" {
		http.Error(w, "Nothing here.", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}
