package live

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// writeMessyBook writes one messy book's folder: an audio file of its
// duration (a hundredth of it, or all of it for standin.MessyUnscaled),
// or, for a book with an ebook and no audio, a PDF alone.
func writeMessyBook(t *testing.T, ffmpeg, folder string, b standin.LibraryItem) {
	t.Helper()
	if b.Book.EbookFile != nil && len(b.Book.AudioFiles) == 0 {
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, b.RelPath+".pdf"), minimalPDF, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	scale := float64(messyDurationScale)
	if standin.MessyUnscaled[b.RelPath] {
		scale = 1
	}
	silentBook(t, ffmpeg, filepath.Join(folder, b.RelPath+".mp3"), fmt.Sprintf("%.3f", b.Book.Duration/scale))
}

// minimalPDF is a one-page PDF with nothing on it (Audiobookshelf 2.36
// reads no metadata from a PDF: it is the book's ebook file, and that is
// all).
var minimalPDF = []byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
	"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 450]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")

// giveAuthorsImages gives every messy author the stand-in gives an image
// (those no audit may name) an image on the server: Audiobookshelf
// downloads it (POST /api/authors/:id/image) from a server on loopback
// (the server is started with SSRF_REQUEST_FILTER_WHITELIST=127.0.0.1).
// Each image is removed again when the test ends, before its library is.
func giveAuthorsImages(t *testing.T, a *abs, data *standin.Data, to map[string]string, img []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(img)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	for _, au := range data.Authors {
		if au.LibraryID != standin.LibraryMessyID || au.ImagePath == "" {
			continue
		}
		id := to[au.ID]
		if id == "" {
			t.Fatalf("no author on the server for %q", au.Name)
		}
		if st := a.do("POST", "/api/authors/"+id+"/image", map[string]any{"url": "http://" + ln.Addr().String() + "/" + id + ".jpg"}, nil); st != 200 {
			t.Fatalf("POST /api/authors/%s/image (%s): %d", id, au.Name, st)
		}
		t.Cleanup(func() {
			if st := a.do("DELETE", "/api/authors/"+id+"/image", nil, nil); st != 200 {
				t.Errorf("DELETE /api/authors/%s/image (%s): %d", id, au.Name, st)
			}
		})
	}
}

// messyCoverJPEG is a messy book's cover: 300 pixels wide, as high as the
// stand-in's CoverAspect says (square for most).
func messyCoverJPEG(b standin.LibraryItem) []byte {
	aspect := b.Book.CoverAspect
	if aspect == 0 {
		aspect = 1.5
	}
	w, h := 300, int(300*aspect+0.5)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), 120, uint8(y), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
