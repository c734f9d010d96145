package ui

import (
	"bytes"
	"os"
	"slices"
	"strings"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Sorting and grouping follow the Unicode collation of the user's locale
// (golang.org/x/text/collate), never byte order: Émilie sorts among the
// E, Ólafur among the O (in a Swedish locale Ö comes after Z, as Swedes
// expect), case and accents matter only between otherwise equal names,
// and numbers in names compare by value ("Track 2" before "Track 10").
// Artists are sorted without a leading "The" ("The Beatles" among the B),
// as Spotify and Strawberry do; they are shown as they are.

// collationTag is the locale sorting follows: LC_ALL, LC_COLLATE or LANG
// ("sv_SE.UTF-8" is Swedish), else the root collation, which suits most
// languages written in Latin, Greek and Cyrillic script.
func collationTag(getenv func(string) string) language.Tag {
	for _, k := range []string{"LC_ALL", "LC_COLLATE", "LANG"} {
		v := getenv(k)
		if v == "" {
			continue
		}
		v, _, _ = strings.Cut(v, ".")
		v, _, _ = strings.Cut(v, "@")
		if v == "C" || v == "POSIX" {
			return language.Und
		}
		if t, err := language.Parse(strings.ReplaceAll(v, "_", "-")); err == nil {
			return t
		}
		return language.Und
	}
	return language.Und
}

// newCollator is the collator of the user's locale. A Collator is not safe
// for concurrent use: each goroutine makes its own.
func newCollator() *collate.Collator {
	return collate.New(collationTag(os.Getenv), collate.Numeric)
}

// artistSortName is name without a leading "The " for sorting.
func artistSortName(name string) string {
	if len(name) > 4 && strings.EqualFold(name[:4], "the ") {
		return strings.TrimSpace(name[4:])
	}
	return name
}

// ranker gives strings their rank in collation order: equal strings (as
// collation sees them) get equal ranks. Strings are ranked once each,
// however many tracks share them.
type ranker struct {
	col  *collate.Collator
	buf  collate.Buffer
	ids  map[string]int32
	strs []string
}

func newRanker(col *collate.Collator) *ranker {
	return &ranker{col: col, ids: map[string]int32{}}
}

// id registers s and returns its distinct id (pass it to ranks later).
func (r *ranker) id(s string) int32 {
	if id, ok := r.ids[s]; ok {
		return id
	}
	id := int32(len(r.strs))
	r.ids[s] = id
	r.strs = append(r.strs, s)
	return id
}

// ranks returns the collation rank of every registered string, by id.
func (r *ranker) ranks() []int32 {
	keys := make([][]byte, len(r.strs))
	r.buf.Reset()
	for i, s := range r.strs {
		keys[i] = r.col.KeyFromString(&r.buf, s)
	}
	order := make([]int32, len(r.strs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return bytes.Compare(keys[a], keys[b]) })
	rank := make([]int32, len(r.strs))
	var n int32
	for i, id := range order {
		if i > 0 && !bytes.Equal(keys[id], keys[order[i-1]]) {
			n++
		}
		rank[id] = n
	}
	return rank
}

// column ranks maps each track's distinct id to its rank in place.
func applyRanks(ids []int32, ranks []int32) {
	for i, id := range ids {
		ids[i] = ranks[id]
	}
}
