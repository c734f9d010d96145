// Package library turns the user's music folders into the catalog the player
// shows: scanning, tags, cover art, content ids, live watching and search.
//
// What it accepts is formats' one list (containers, extensions, MIME
// types). Scan reads the folders into an Index and never fails on one bad
// file (each problem is counted and named); Watch follows changes after a
// scan and reports them as Events, a music folder that goes as Failed with
// ErrRootUnavailable. Search folds case and accents the same way for every
// front end (Normalize, QueryTerms, Matches).
package library
