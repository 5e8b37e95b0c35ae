package release

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// BundleIconFile is the bundle's icon, next to the manifest template (the
// manifest names it, and `mcpb validate` looks for it there); the bundle
// carries it at its root. Generated (make generate) by Icon.
const BundleIconFile = "packaging/mcpb/" + toolgen.BundleIcon

// IconSize is the icon's width and height: Claude Desktop's recommended size.
const IconSize = 512

// Icon draws the bundle's icon, an original drawing of this project: four
// book spines of different heights and colours leaning on one another on a
// shelf, under the arc of a pair of headphones, on a rounded dark-teal
// square. Drawn point by point (2×2 samples a pixel for smooth edges), so
// the same Go gives the same PNG.
func Icon() []byte {
	const n = IconSize
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	type shape struct {
		in  func(x, y float64) bool
		col color.NRGBA
	}
	bg := color.NRGBA{0x1d, 0x4e, 0x5a, 0xff}
	shelf := color.NRGBA{0xe9, 0xd8, 0xb4, 0xff}
	rect := func(x0, y0, x1, y1 float64) func(x, y float64) bool {
		return func(x, y float64) bool { return x >= x0 && x < x1 && y >= y0 && y < y1 }
	}
	// A spine tilted by angle (radians) about its bottom-left corner.
	tilted := func(x0, y0, w, h, angle float64) func(x, y float64) bool {
		s, c := math.Sin(angle), math.Cos(angle)
		return func(x, y float64) bool {
			dx, dy := x-x0, y-(y0+h)
			u := dx*c + dy*s
			v := -dx*s + dy*c
			return u >= 0 && u < w && v > -h && v <= 0
		}
	}
	// The headphones: a thick arc and two ear cups.
	arc := func(x, y float64) bool {
		dx, dy := x-256, y-250
		r := math.Hypot(dx, dy)
		return r >= 150 && r <= 176 && dy <= 0
	}
	cup := func(cx float64) func(x, y float64) bool {
		return func(x, y float64) bool {
			dx, dy := (x-cx)/26, (y-262)/52
			return dx*dx+dy*dy <= 1
		}
	}
	shapes := []shape{
		{arc, color.NRGBA{0xf2, 0xf2, 0xee, 0xff}},
		{cup(93), color.NRGBA{0xf2, 0xf2, 0xee, 0xff}},
		{cup(419), color.NRGBA{0xf2, 0xf2, 0xee, 0xff}},
		{rect(150, 190, 196, 400), color.NRGBA{0xe0, 0x7a, 0x3f, 0xff}},
		{rect(204, 160, 262, 400), color.NRGBA{0xf0, 0xb4, 0x3c, 0xff}},
		{rect(270, 215, 310, 400), color.NRGBA{0x8f, 0xc0, 0xa9, 0xff}},
		{tilted(316, 200, 42, 200, -0.14), color.NRGBA{0xc9, 0x4f, 0x4f, 0xff}},
		// Bands on the spines.
		{rect(150, 222, 196, 232), color.NRGBA{0xf7, 0xe7, 0xc9, 0xff}},
		{rect(204, 196, 262, 206), color.NRGBA{0x7a, 0x4b, 0x16, 0xff}},
		{rect(270, 246, 310, 254), color.NRGBA{0x2f, 0x5e, 0x52, 0xff}},
		{rect(120, 400, 392, 418), shelf},
	}
	// The rounded square.
	inSquare := func(x, y float64) bool {
		const r, m = 96.0, 8.0
		cx := math.Min(math.Max(x, m+r), n-m-r)
		cy := math.Min(math.Max(y, m+r), n-m-r)
		return math.Hypot(x-cx, y-cy) <= r
	}
	const ss = 2
	for py := 0; py < n; py++ {
		for px := 0; px < n; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := float64(px) + (float64(sx)+0.5)/ss
					y := float64(py) + (float64(sy)+0.5)/ss
					if !inSquare(x, y) {
						continue
					}
					c := bg
					for _, s := range shapes {
						if s.in(x, y) {
							c = s.col
						}
					}
					r += float64(c.R)
					g += float64(c.G)
					b += float64(c.B)
					a++
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{uint8(r/a + 0.5), uint8(g/a + 0.5), uint8(b/a + 0.5), uint8(a*255/(ss*ss) + 0.5)})
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		panic(err) // writing to memory does not fail
	}
	return buf.Bytes()
}
