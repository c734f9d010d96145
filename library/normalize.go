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

// QueryTerms splits a user query into its search terms: the words of the
// Normalize'd query (Words), at most MaxQueryTerms. A track matches when
// every term starts a word of its SearchText (Matches).
func QueryTerms(query string) []string {
	terms := Words(Normalize(query))
	if len(terms) > MaxQueryTerms {
		terms = terms[:MaxQueryTerms]
	}
	return terms
}

// MaxQueryTerms bounds the work a single pasted query can cause.
const MaxQueryTerms = 8

// Words splits s into words the way SQLite's unicode61 tokenizer does
// (storage's full-text index): runs of letters, numbers, marks and
// private-use characters; everything else separates.
func Words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !wordRune(r) })
}

func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r)
}

// Matches reports whether every term (QueryTerms) starts a word of
// searchText (a SearchText): "ros" finds "Sigur Rós", "sig ro" too, while
// the user is still typing; "igur" does not. This is the one search of
// furudesk: the window filters its catalog with it, and storage's
// full-text search (ctl search) has the same semantics, prefix terms of
// the same words. An empty term list matches everything.
func Matches(searchText string, terms []string) bool {
	for _, t := range terms {
		if !hasWordPrefix(searchText, t) {
			return false
		}
	}
	return true
}

// hasWordPrefix reports whether a word of s starts with prefix.
func hasWordPrefix(s, prefix string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], prefix)
		if j < 0 {
			return false
		}
		j += i
		if j == 0 || !wordRune(lastRune(s[:j])) {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[j:])
		i = j + size
	}
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
