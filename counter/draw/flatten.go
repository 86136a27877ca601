package draw

import (
	"math"

	"golang.org/x/image/vector"
)

// Curves are cut into lines here rather than by vector.Rasterizer's QuadTo
// and CubeTo. Go lets a compiler fuse x*y+z into one multiply-add with a
// single rounding, and on arm64 (and amd64 built with GOAMD64=v3) it does so
// in those two methods: the same digit came out with a few edge pixels one
// coverage level apart on a Pi 4 and on a PC. Here every product is rounded
// on its own by an explicit conversion, which the Go spec says prevents
// fusion, so every architecture draws the pixels that plain amd64 draws.
// The steps are otherwise those of x/image/vector v0.48.0.

// quadTo adds a quadratic Bézier curve from the pen via (bx, by) to (cx, cy).
func quadTo(z *vector.Rasterizer, bx, by, cx, cy float32) {
	ax, ay := z.Pen()
	if n := curveSteps(devSquared(ax, ay, bx, by, cx, cy)); n > 1 {
		t, nInv := float32(0), 1/float32(n)
		for i := 0; i < n-1; i++ {
			t += nInv
			abx, aby := lerp(t, ax, ay, bx, by)
			bcx, bcy := lerp(t, bx, by, cx, cy)
			z.LineTo(lerp(t, abx, aby, bcx, bcy))
		}
	}
	z.LineTo(cx, cy)
}

// cubeTo adds a cubic Bézier curve from the pen via (bx, by) and (cx, cy) to
// (dx, dy).
func cubeTo(z *vector.Rasterizer, bx, by, cx, cy, dx, dy float32) {
	ax, ay := z.Pen()
	dev := max(devSquared(ax, ay, bx, by, dx, dy), devSquared(ax, ay, cx, cy, dx, dy))
	if n := curveSteps(dev); n > 1 {
		t, nInv := float32(0), 1/float32(n)
		for i := 0; i < n-1; i++ {
			t += nInv
			abx, aby := lerp(t, ax, ay, bx, by)
			bcx, bcy := lerp(t, bx, by, cx, cy)
			cdx, cdy := lerp(t, cx, cy, dx, dy)
			abcx, abcy := lerp(t, abx, aby, bcx, bcy)
			bcdx, bcdy := lerp(t, bcx, bcy, cdx, cdy)
			z.LineTo(lerp(t, abcx, abcy, bcdx, bcdy))
		}
	}
	z.LineTo(dx, dy)
}

// curveSteps is how many lines approximate a curve as curvy as devsq.
func curveSteps(devsq float32) int {
	if devsq < 0.333 {
		return 1
	}
	const tol = 3
	return 1 + int(math.Sqrt(math.Sqrt(tol*float64(devsq))))
}

func lerp(t, px, py, qx, qy float32) (x, y float32) {
	return px + float32(t*(qx-px)), py + float32(t*(qy-py))
}

// devSquared measures how curvy the path (ax, ay), (bx, by), (cx, cy) is.
func devSquared(ax, ay, bx, by, cx, cy float32) float32 {
	devx := ax - float32(2*bx) + cx
	devy := ay - float32(2*by) + cy
	return float32(devx*devx) + float32(devy*devy)
}
