package listening

import (
	"context"
	"math"
	"net/http"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// listened is what get_listening_year and get_listening_by_period read
// together: the person's sessions since a day (cut: not all were read),
// Audiobookshelf's own listening stats and the progress records.
type listened struct {
	sessions []absdata.Session
	cut      bool
	stats    absdata.ListeningStats
	recs     []absdata.Progress
}

// readListened reads the sessions since from while the records and (with
// withStats) the listening stats are read alongside.
func readListened(ctx context.Context, d *kit.Deps, from time.Time, withStats bool) (listened, error) {
	recsP := kit.Alongside(ctx, func(ctx context.Context) recordsOrErr {
		r, err := d.ProgressRecords(ctx)
		return recordsOrErr{r, err}
	})
	type statsOrErr struct {
		v   absdata.ListeningStats
		err error
	}
	statsP := kit.Alongside(ctx, func(ctx context.Context) statsOrErr {
		if !withStats {
			return statsOrErr{}
		}
		body, err := d.Get(ctx, "the listening stats", func(ctx context.Context) (*http.Response, error) { return d.API.GetListeningStats(ctx) })
		if err != nil {
			return statsOrErr{err: err}
		}
		var v absdata.ListeningStats
		err = kit.Decode(body, &v)
		return statsOrErr{v, err}
	})
	var l listened
	var err error
	l.sessions, l.cut, err = readSessionsSince(ctx, d, from)
	if err != nil {
		recsP.Abandon()
		statsP.Abandon()
		return l, err
	}
	st := statsP.Wait()
	if st.err != nil {
		recsP.Abandon()
		return l, st.err
	}
	r := recsP.Wait()
	if r.err != nil {
		return l, r.err
	}
	l.stats, l.recs = st.v, r.recs
	return l, nil
}

// people adds t to each of m's authors (or its one author's name),
// narrators and genres.
func people(m *absdata.Metadata, t float64, authors, narrators, genres map[string]float64) {
	for _, au := range m.Authors {
		authors[au.Name] += t
	}
	if len(m.Authors) == 0 && m.Author != "" {
		authors[m.Author] += t
	}
	for _, n := range m.Narrators {
		narrators[n] += t
	}
	for _, g := range m.Genres {
		genres[g] += t
	}
}

// daysTaken is the days from a record's start to its finish, rounded up;
// nil when the record has no start or finishes before it.
func daysTaken(p *absdata.Progress) *int {
	if p.StartedAt > 0 && *p.FinishedAt >= p.StartedAt {
		n := int(math.Ceil(float64(*p.FinishedAt-p.StartedAt) / float64(24*time.Hour/time.Millisecond)))
		return &n
	}
	return nil
}
