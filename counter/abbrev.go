package counter

import "strconv"

// Abbreviate writes n short, as komarev's github-profile-views-counter
// does with abbreviated=true (src/BadgeImageRendererService.php,
// formatAbbreviatedNumber, at 8553eb45a852ef93129537ff875d7d7962028a05):
// below 1,000 as it is; else in thousands (K), millions (M), billions
// (B), trillions (T), quadrillions (Qa) or quintillions (Qi), the largest
// unit not above n, rounded to one decimal, half away from zero, and the
// decimal left out when it is 0: 1.2K, 12.3K, 1K, 1.2M. Two differences:
// the rounding is done on the exact decimal (komarev's PHP round works on
// a float), and a figure that rounds up to 1,000 of its unit is written
// in the next (999,950 is 1M, where komarev writes 1000K).
func Abbreviate(n uint64) string {
	if n < 1000 {
		return strconv.FormatUint(n, 10)
	}
	unit, div := 0, uint64(1)
	for unit < len(abbrevUnits)-1 && n/div >= 1000 {
		unit, div = unit+1, div*1000
	}
	tenths := roundedTenths(n, div)
	if tenths >= 10_000 && unit < len(abbrevUnits)-1 {
		unit, div = unit+1, div*1000
		tenths = roundedTenths(n, div)
	}
	s := strconv.FormatUint(tenths/10, 10)
	if d := tenths % 10; d != 0 {
		s += "." + strconv.FormatUint(d, 10)
	}
	return s + abbrevUnits[unit]
}

// abbrevUnits are Abbreviate's units, komarev's ABBREVIATIONS, a power of
// 1,000 apart; a uint64 needs no more.
var abbrevUnits = [...]string{"", "K", "M", "B", "T", "Qa", "Qi"}

// AbbreviationRunes are the characters Abbreviate writes besides digits:
// a drawing that has not all of them draws the full number.
const AbbreviationRunes = ".KMBTQai"

// roundedTenths is n/div in tenths, rounded half up, without overflow;
// div is a power of 1,000 from 1,000 on.
func roundedTenths(n, div uint64) uint64 {
	d := div / 10
	q, r := n/d, n%d
	if r >= d-r { // r/d >= 1/2
		q++
	}
	return q
}
