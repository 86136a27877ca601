package counter

// ImageQuery is the query string of an image request, read once: the
// style, and the keys that say what the hit counts and shows.
type ImageQuery struct {
	Style Style
	// Count is false for count=0, which shows the count without
	// counting, for a page that shows a count it does not own (an index
	// listing posts, say); count=1 is the default.
	Count bool
	// Page is a site's page as page=PATH names it; HasPage says it was
	// given.
	Page    string
	HasPage bool
	// Image is the tag's show=page|site, nil when not given.
	Image *Image
	// Typo is the first key that looks like a misspelling of one of
	// ImageKeys (see LooksLike), when HasTypo. Keys an image reads, and
	// keys like no known one (a cache-busting v=2, utm_source), are
	// passed over.
	Typo    Typo
	HasTypo bool
}

// ParseImageQuery reads an image request's query in one pass, with
// ParseStyle's bounds: a known key given twice, or with a bad value, is
// refused; unknown ones (a cache-buster) are passed over.
func ParseImageQuery(rawQuery string) (ImageQuery, error) {
	return ParseImageQueryTheme(rawQuery, "")
}

// ParseImageQueryTheme is ParseImageQuery for a counter whose default
// theme (its setting theme=) is theme: a query that names no theme reads
// as if it said theme=THEME.
func ParseImageQueryTheme(rawQuery, theme string) (ImageQuery, error) {
	q := ImageQuery{Count: true}
	var count, page, show bool // given
	twice := func(given *bool, key string) error {
		if *given {
			return &ParamError{key, "given more than once"}
		}
		*given = true
		return nil
	}
	var err error
	q.Style, err = parseStyle(rawQuery, theme, func(rawKey, key, value string) error {
		switch key {
		case "count":
			if err := twice(&count, key); err != nil {
				return err
			}
			switch value {
			case "0":
				q.Count = false
			case "1":
			default:
				return &ParamError{"count", "must be 0 (show without counting) or 1"}
			}
		case "page":
			if err := twice(&page, key); err != nil {
				return err
			}
			q.Page, q.HasPage = value, true
		case "show":
			if err := twice(&show, key); err != nil {
				return err
			}
			i, ok := ParseImage(value)
			if !ok {
				return &ParamError{"show", "must be page or site"}
			}
			q.Image = &i
		default:
			if !q.HasTypo && !isImageKey(rawKey) {
				if known, ok := LooksLike(rawKey); ok {
					q.Typo, q.HasTypo = Typo{Key: rawKey, Known: known}, true
				}
			}
		}
		return nil
	})
	return q, err
}
