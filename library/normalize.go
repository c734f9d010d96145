package library

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// specialFold maps letters that Unicode decomposition does not reduce to a
// base letter plus marks but that users type as plain Latin letters.
var specialFold = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe",
	'ø': "o", 'Ø': "o", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d",
	'ł': "l", 'Ł': "l", 'þ': "th", 'Þ': "th", 'ı': "i", 'ħ': "h", 'Ħ': "h",
	'ŀ': "l", 'Ŀ': "l", 'ŉ': "n", 'ĸ': "k", 'ŧ': "t", 'Ŧ': "t",
	'\u2018': "'", '\u2019': "'", '\u201c': "\"", '\u201d': "\"",
	'\u2010': "-", '\u2013': "-", '\u2014': "-",
}

// Normalize folds s for case- and accent-insensitive search: canonical
// decomposition with combining marks dropped, lower case, a few letters
// without decomposition spelled out (ß → ss, ø → o, æ → ae), runs of white
// space collapsed to one space, leading and trailing space trimmed, invalid
// UTF-8 replaced by U+FFFD. It is pure and deterministic: storage applies it to
// its search column and to queries, so both sides agree.
func Normalize(s string) string {
	if isPlainLower(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	space := true // drop leading space
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		space = false
		if f, ok := specialFold[r]; ok {
			b.WriteString(f)
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	out := b.String()
	return strings.TrimSuffix(out, " ")
}

// isPlainLower reports whether s is already normalized ASCII, the common case
// for queries, so Normalize can return it without allocating.
func isPlainLower(s string) bool {
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || (c >= 'A' && c <= 'Z') || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			return false
		}
		if c == ' ' {
			if prevSpace {
				return false
			}
			prevSpace = true
			continue
		}
		prevSpace = false
	}
	return !prevSpace || s == ""
}

// SearchText is the normalized text a track is searched by: title, artists,
// album and album artist, joined by single spaces. Storage stores it in its
// search column (or FTS5 table) so SQL search and Matches agree.
func SearchText(t Track) string {
	parts := make([]string, 0, 3+len(t.Artists))
	parts = append(parts, t.Title)
	parts = append(parts, t.Artists...)
	parts = append(parts, t.Album)
	if t.AlbumArtist != "" {
		parts = append(parts, t.AlbumArtist)
	}
	return Normalize(strings.Join(parts, " "))
}

// QueryTerms splits a user query into normalized terms. A track matches when
// every term occurs in its SearchText (substring match, so results appear
// while the user is still typing a word). At most maxQueryTerms terms are
// kept.
func QueryTerms(query string) []string {
	terms := strings.Fields(Normalize(query))
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	return terms
}

// maxQueryTerms bounds the work a single pasted query can cause.
const maxQueryTerms = 16

// Matches reports whether a SearchText contains every query term.
// An empty term list matches everything.
func Matches(searchText string, terms []string) bool {
	for _, t := range terms {
		if !strings.Contains(searchText, t) {
			return false
		}
	}
	return true
}
