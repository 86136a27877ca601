// Command realsets measures the digit sets real counters ship, read
// straight from a fetched git repository's objects (git cat-file), so
// that the bounds of counter/digitset are chosen from figures, not
// guessed: for every folder of digit images (Moe-Counter's assets/theme/*)
// and every strip (Count.cgi's data/digits/*/strip.gif), each piece's
// pixel size, frames, bytes and extension, and per set the pixels every
// frame counted, the bytes and the widest count of 8 digits.
//
//	go run ./deploy/bench/realsets GITDIR PREFIX [strip]
//	go run ./deploy/bench/realsets /work/.mirror/journey-ad+Moe-Counter/repo assets/theme/
//	go run ./deploy/bench/realsets /work/.mirror/kadaokaduan+wwwcount/repo data/digits/ strip
package main

import (
	"bytes"
	"fmt"
	"image"
	"image/gif"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"os/exec"
	"path"
	"sort"
	"strings"

	_ "golang.org/x/image/webp"
)

type piece struct {
	name         string
	w, h, frames int
	bytes        int
	ext          string
	err          string
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: realsets GITDIR PREFIX [strip]")
		os.Exit(2)
	}
	gitDir, prefix := os.Args[1], os.Args[2]
	strip := len(os.Args) > 3 && os.Args[3] == "strip"
	head, err := exec.Command("git", "--git-dir", gitDir, "rev-parse", "HEAD").Output()
	if err != nil {
		fail(err)
	}
	fmt.Printf("# %s at %s\n", gitDir, strings.TrimSpace(string(head)))
	out, err := exec.Command("git", "--git-dir", gitDir, "ls-tree", "-r", "--name-only", "HEAD", prefix).Output()
	if err != nil {
		fail(err)
	}
	sets := map[string][]piece{}
	for _, name := range strings.Fields(string(out)) {
		ext := strings.ToLower(path.Ext(name))
		switch ext {
		case ".png", ".gif", ".jpg", ".jpeg", ".webp":
		default:
			continue
		}
		if strip && path.Base(name) != "strip.gif" {
			continue
		}
		data, err := exec.Command("git", "--git-dir", gitDir, "cat-file", "blob", "HEAD:"+name).Output()
		if err != nil {
			fail(err)
		}
		p := measure(data)
		p.name, p.ext = path.Base(name), ext
		set := path.Dir(strings.TrimPrefix(name, prefix))
		sets[set] = append(sets[set], p)
	}
	names := make([]string, 0, len(sets))
	for k := range sets {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Println("set\tpieces\texts\tdigit WxH (min-max)\tframes max\tpixels all frames\tbytes\t8 digits WxH")
	var maxW, maxH, maxFrames, maxPix, maxBytes, maxPiecePix, maxOutW, maxOutH int
	for _, k := range names {
		ps := sets[k]
		exts := map[string]bool{}
		minW, minH, mw, mh, mf, pix, b := 1<<30, 1<<30, 0, 0, 0, 0, 0
		widest := 0
		for _, p := range ps {
			if p.err != "" {
				fmt.Printf("%s\t%s: %s\n", k, p.name, p.err)
				continue
			}
			exts[p.ext] = true
			w := p.w
			if strip {
				w /= 10
			}
			minW, minH = min(minW, w), min(minH, p.h)
			mw, mh, mf = max(mw, w), max(mh, p.h), max(mf, p.frames)
			pix += p.w * p.h * p.frames
			b += p.bytes
			maxPiecePix = max(maxPiecePix, w*p.h*p.frames)
			if !strings.HasPrefix(p.name, "_") {
				widest = max(widest, w)
			}
		}
		var es []string
		for e := range exts {
			es = append(es, e)
		}
		sort.Strings(es)
		fmt.Printf("%s\t%d\t%s\t%dx%d-%dx%d\t%d\t%d\t%d\t%dx%d\n", k, len(ps), strings.Join(es, ","), minW, minH, mw, mh, mf, pix, b, 8*widest, mh)
		maxW, maxH, maxFrames = max(maxW, mw), max(maxH, mh), max(maxFrames, mf)
		maxPix, maxBytes = max(maxPix, pix), max(maxBytes, b)
		maxOutW, maxOutH = max(maxOutW, 8*widest), max(maxOutH, mh)
	}
	fmt.Printf("# largest: piece %dx%d px, %d pixels a piece every frame counted, %d frames, set %d pixels every frame counted, %d bytes, 8 digits %dx%d px\n",
		maxW, maxH, maxPiecePix, maxFrames, maxPix, maxBytes, maxOutW, maxOutH)
}

func measure(data []byte) piece {
	p := piece{bytes: len(data), frames: 1}
	if bytes.HasPrefix(data, []byte("GIF8")) {
		g, err := gif.DecodeAll(bytes.NewReader(data))
		if err != nil {
			p.err = err.Error()
			return p
		}
		p.w, p.h, p.frames = g.Config.Width, g.Config.Height, len(g.Image)
		return p
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		p.err = err.Error()
		return p
	}
	p.w, p.h = cfg.Width, cfg.Height
	return p
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "realsets:", err)
	os.Exit(1)
}
