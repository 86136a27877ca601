package testfiles

// MoeDelays returns the frame delays, in hundredths, of digit i of the
// largest animated sets Moe-Counter ships (assets/theme/booru-lewd and
// rule34 at 8abee4d, as deploy/bench/realsets and image/gif read them):
// 6 to 12 frames a digit, of mixed timings, cycles of 1 to 6.5 s. The
// tests and benches that draw a set of that shape share them.
func MoeDelays(i int) []int {
	return append([]int(nil), moeDelays[i]...)
}

var moeDelays = [10][]int{
	{50, 20, 10, 10, 20, 50, 20, 10, 10, 20},
	{50, 20, 10, 20, 10, 20, 10, 20, 10},
	{50, 20, 10, 20, 10, 10, 10, 10, 20},
	{50, 10, 20, 50, 10, 20, 50, 10, 20, 50, 10, 20},
	{10, 10, 10, 10, 10, 10, 10, 10, 10, 10},
	{50, 20, 20, 10, 50, 20, 50, 10},
	{10, 10, 20, 10, 10, 10, 10, 20, 10},
	{100, 20, 20, 100, 20, 100, 20, 100, 20},
	{200, 10, 20, 20, 10, 50},
	{200, 10, 100, 10, 200, 20, 100, 10},
}
